// Row blocks of A and C as the kernel (spmm.cpp) and its check (check.cpp)
// both handle them: as 64-bit words for a gather, and the product of a
// block of rows (displacements: core/mpi.hpp's displacements_of).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "kernels/spmm/spmm.hpp"

namespace gc::spmm {

// The words of a block of `rows` rows and `nonzeros` nonzeros as serialize()
// writes it (what a gather moves; advise's SpMM features count them).
constexpr std::uint64_t block_words(std::uint64_t rows, std::uint64_t nonzeros) {
  return 2 + (rows + 1) + 2 * nonzeros;
}

// A block of rows as 64-bit words: first, count, offsets, columns, values.
inline std::vector<std::uint64_t> serialize(const Rows& r) {
  std::vector<std::uint64_t> out{r.first, r.count()};
  out.insert(out.end(), r.offsets.begin(), r.offsets.end());
  out.insert(out.end(), r.columns.begin(), r.columns.end());
  for (double v : r.values) out.push_back(std::bit_cast<std::uint64_t>(v));
  return out;
}

// Into `r`, whose vectors keep their memory: a gather repeated every
// iteration unpacks into the same blocks without allocating again.
inline void deserialize_into(const std::uint64_t* w, Rows& r) {
  r.first = w[0];
  const std::uint64_t n = w[1];
  r.offsets.assign(w + 2, w + 3 + n);
  const std::uint64_t nnz = r.offsets.back();
  r.columns.assign(w + 3 + n, w + 3 + n + nnz);
  r.values.resize(nnz);
  for (std::uint64_t k = 0; k < nnz; ++k) r.values[k] = std::bit_cast<double>(w[3 + n + nnz + k]);
}

inline Rows deserialize(const std::uint64_t* w) {
  Rows r;
  deserialize_into(w, r);
  return r;
}

// C's rows for `a`'s rows, given every row of A they refer to through
// `row_of(j)` (a RowRef: a pointer into some Rows and its index there). Rows
// of C sorted by column; sums in the order of A's entries, so the result does
// not depend on the distribution. Not inlined into run(), whose live variables
// made the compiler spill this loop's variables.
template <typename Find>
[[gnu::noinline]] Rows multiply(const Rows& a, vid_t n, const Find& row_of) {
  Rows c;
  c.first = a.first;
  std::vector<double> sum_of(n, 0.0);
  std::vector<char> seen_of(n, 0);
  double* sum = sum_of.data();
  char* seen = seen_of.data();
  std::vector<std::uint64_t> touched;
  for (std::uint64_t i = 0; i < a.count(); ++i) {
    touched.clear();
    for (std::uint64_t e = a.offsets[i]; e < a.offsets[i + 1]; ++e) {
      const RowRef b = row_of(a.columns[e]);
      const double x = a.values[e];
      const std::uint64_t* columns = b.rows->columns.data();
      const double* values = b.rows->values.data();
      for (std::uint64_t f = b.rows->offsets[b.index]; f < b.rows->offsets[b.index + 1]; ++f) {
        const std::uint64_t k = columns[f];
        if (!seen[k]) {
          seen[k] = 1;
          touched.push_back(k);
        }
        sum[k] += x * values[f];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (std::uint64_t k : touched) {
      c.columns.push_back(k);
      c.values.push_back(sum[k]);
      sum[k] = 0;
      seen[k] = 0;
    }
    c.offsets.push_back(c.columns.size());
  }
  return c;
}

}  // namespace gc::spmm
