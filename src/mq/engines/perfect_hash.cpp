// Row-displacement perfect hashing (Tarjan and Yao, CACM 1979), the partner
// lookup of the partner engines (Ghazimirsaeed et al., CCPE 2018).
#include "mq/engines/perfect_hash.hpp"

#include <algorithm>
#include <cmath>

namespace gc::mq {

namespace {

// ceil(sqrt(u)), at least 2 (see width_), exact for every 32-bit u.
std::uint32_t ceil_sqrt(std::uint32_t u) {
  std::uint64_t m = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(u)));
  while (m * m < u) ++m;
  while (m > 1 && (m - 1) * (m - 1) >= u) --m;
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(m, 2));
}

}  // namespace

PerfectHash::PerfectHash(const std::vector<std::uint32_t>& keys, std::uint32_t universe) {
  if (keys.empty()) return;
  const std::uint32_t largest = *std::max_element(keys.begin(), keys.end());
  // A key outside the universe widens it rather than breaking the layout.
  width_ = ceil_sqrt(std::max(universe, largest + 1));
  reciprocal_ = ~std::uint64_t{0} / width_ + 1;
  keys_ = static_cast<std::uint32_t>(keys.size());
  const std::uint32_t m = width_;

  // The m x m matrix, row by row: each row's keys in column order (a counting
  // sort by row of the key indices, sorted by key).
  std::vector<std::uint32_t> by_key(keys.size());
  for (std::uint32_t i = 0; i < keys_; ++i) by_key[i] = i;
  std::sort(by_key.begin(), by_key.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  std::vector<std::uint32_t> row_begin(m + 1, 0);
  for (std::uint32_t k : keys) ++row_begin[k / m + 1];
  for (std::uint32_t r = 0; r < m; ++r) row_begin[r + 1] += row_begin[r];

  // First fit, fullest rows first: each row takes the smallest displacement
  // at which none of its columns hits an occupied slot.
  std::vector<std::uint32_t> rows;
  for (std::uint32_t r = 0; r < m; ++r)
    if (row_begin[r + 1] > row_begin[r]) rows.push_back(r);
  std::stable_sort(rows.begin(), rows.end(), [&](auto a, auto b) {
    return row_begin[a + 1] - row_begin[a] > row_begin[b + 1] - row_begin[b];
  });
  displacement_.assign(m, 0);
  rows_ = m;
  std::vector<bool> occupied;
  std::uint64_t slots = m;  // every row, shifted by its displacement, must fit
  for (std::uint32_t r : rows) {
    const std::uint32_t* first = by_key.data() + row_begin[r];
    const std::uint32_t* last = by_key.data() + row_begin[r + 1];
    std::uint32_t d = 0;
    for (;; ++d) {
      bool fits = true;
      for (const std::uint32_t* i = first; fits && i != last; ++i) {
        const std::uint64_t slot = d + keys[*i] % m;
        fits = slot >= occupied.size() || !occupied[slot];
      }
      if (fits) break;
    }
    displacement_[r] = d;
    slots = std::max<std::uint64_t>(slots, std::uint64_t{d} + m);
    if (occupied.size() < d + m) occupied.resize(d + m, false);
    for (const std::uint32_t* i = first; i != last; ++i) occupied[d + keys[*i] % m] = true;
  }

  // Collapsed: only the slots some row can reach.
  table_.assign(slots, Entry{});
  for (std::uint32_t i = 0; i < keys_; ++i) {
    Entry& e = table_[displacement_[keys[i] / m] + keys[i] % m];
    e.key = keys[i];
    e.value = static_cast<std::int32_t>(i);
  }
}

}  // namespace gc::mq
