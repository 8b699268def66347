// Console tables whose header and rows come from one list of columns, so that
// a column's width is written once and the header cannot drift from its rows.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace gc {

// A column: its name, which heads it, and fmt's format spec of its cells:
// "<12" text left in 12, ">11" right in 11, ">9.4f" right in 9 with 4
// decimals. The header takes the spec's alignment and width alone. An empty
// spec is free text: two spaces before it and no padding (a verdict at the
// end of a row, which may be a sentence).
struct Column {
  std::string name, spec;
};

class Table {
 public:
  // `indent` starts every line.
  explicit Table(std::initializer_list<Column> columns, std::string indent = {});

  // The names, one line.
  std::string header() const;

  // One line: a value per column, in the columns' order.
  template <class... Cells>
  std::string row(const Cells&... cells) const {
    expect_cells(sizeof...(Cells));
    std::string out = indent_;
    std::size_t column = 0;
    (append(out, column++, cells), ...);  // left to right
    return out + '\n';
  }

 private:
  template <class T>
  void append(std::string& out, std::size_t column, const T& value) const {
    out += separator(column);
    out += fmt::format(fmt::runtime(cell_formats_[column]), value);
  }
  const char* separator(std::size_t column) const;
  void expect_cells(std::size_t count) const;

  std::vector<Column> columns_;
  std::vector<std::string> cell_formats_;  // "{:>9.4f}"
  std::string indent_;
};

}  // namespace gc
