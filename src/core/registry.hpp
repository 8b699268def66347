// Lookups in a registry: a table of rows, each with a `name` and often a key
// (an enumerator), as the kernels' algorithms and methods keep them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"

namespace gc {

// The names of the rows, in order.
template <class Row>
std::vector<std::string> names_of(const std::vector<Row>& table) {
  std::vector<std::string> names;
  for (const Row& row : table) names.emplace_back(row.name);
  return names;
}

// The key of the row named `name`; else one error line on every rank naming
// the rows ("unknown `what` 'NAME' (one of: ...)"). Collective on failure.
template <class Row, class Key>
Key key_named(const std::vector<Row>& table, Key Row::*key, const std::string& name,
              std::string_view what) {
  std::vector<std::string_view> names;
  for (const Row& row : table) {
    if (name == row.name) return row.*key;
    names.push_back(row.name);
  }
  fail_everywhere(fmt::format("unknown {} '{}' (one of: {})", what, name, fmt::join(names, ", ")));
}

// The name of the row whose key is `k`, "?" if none.
template <class Row, class Key>
const char* name_of_key(const std::vector<Row>& table, Key Row::*key, Key k) {
  for (const Row& row : table)
    if (row.*key == k) return row.name;
  return "?";
}

}  // namespace gc
