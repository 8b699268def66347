#include "core/table.hpp"

#include "core/error.hpp"

namespace gc {

namespace {

// The header's spec: the cells' alignment and width, without precision or type.
std::string header_spec(const std::string& spec) {
  return spec.substr(0, spec.find_first_not_of("<>^0123456789"));
}

}  // namespace

Table::Table(std::initializer_list<Column> columns, std::string indent)
    : columns_(columns), indent_(std::move(indent)) {
  for (const Column& c : columns_) cell_formats_.push_back("{:" + c.spec + "}");
}

std::string Table::header() const {
  std::string out = indent_;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    out += separator(c);
    out += fmt::format(fmt::runtime("{:" + header_spec(columns_[c].spec) + "}"), columns_[c].name);
  }
  return out + '\n';
}

const char* Table::separator(std::size_t column) const {
  if (column == 0) return "";
  return columns_[column].spec.empty() ? "  " : " ";
}

void Table::expect_cells(std::size_t count) const {
  if (count != columns_.size())
    fail(fmt::format("table row of {} cells for {} columns", count, columns_.size()));
}

}  // namespace gc
