// spmm::check: C compared with a serial product of the gathered A on rank 0.
#include <algorithm>

#include <fmt/format.h>

#include "core/broadcast.hpp"
#include "kernels/spmm/row_blocks.hpp"
#include "kernels/spmm/spmm.hpp"

namespace gc::spmm {

std::string check(const Comm& comm, const DistGraph& g, const Rows& c) {
  const int p = comm.size();
  // Gather A's and C's blocks on rank 0.
  auto gather_blocks = [&](const Rows& r) {
    std::vector<int> counts;
    const std::vector<std::uint64_t> all = gatherv(comm, serialize(r), 0, &counts);
    std::uint64_t words = 0;
    const std::vector<int> displs = displacements_of(counts, words, "spmm check displacement");
    std::vector<Rows> out;
    if (comm.rank() == 0)
      for (int q = 0; q < p; ++q)
        out.push_back(deserialize(all.data() + displs[static_cast<size_t>(q)]));
    return out;
  };
  const std::vector<Rows> a = gather_blocks(rows_of(g));
  const std::vector<Rows> got = gather_blocks(c);
  std::string verdict = "OK";
  if (comm.rank() == 0) {
    const Distribution& dist = g.distribution();
    for (int q = 0; q < p && verdict == "OK"; ++q) {
      const Rows want =
          multiply(a[static_cast<size_t>(q)], g.global_vertex_count(), [&](std::uint64_t j) {
            const Rows& rows = a[static_cast<size_t>(dist.owner_of(j))];
            return RowRef{&rows, j - rows.first};
          });
      const Rows& have = got[static_cast<size_t>(q)];
      for (std::uint64_t i = 0; i < want.count() && verdict == "OK"; ++i) {
        const auto span = [](const Rows& r, std::uint64_t i) {
          return std::make_pair(r.offsets[i], r.offsets[i + 1]);
        };
        const auto [wb, we] = span(want, i);
        const auto [hb, he] = i < have.count() ? span(have, i) : std::make_pair(0ul, 0ul);
        const bool same = we - wb == he - hb &&
                          std::equal(want.columns.begin() + static_cast<std::ptrdiff_t>(wb),
                                     want.columns.begin() + static_cast<std::ptrdiff_t>(we),
                                     have.columns.begin() + static_cast<std::ptrdiff_t>(hb)) &&
                          std::equal(want.values.begin() + static_cast<std::ptrdiff_t>(wb),
                                     want.values.begin() + static_cast<std::ptrdiff_t>(we),
                                     have.values.begin() + static_cast<std::ptrdiff_t>(hb));
        if (!same)
          verdict = fmt::format("row {} of C differs from the serial product", want.first + i);
      }
    }
  }
  broadcast(verdict, 0, comm.get());
  return verdict;
}

}  // namespace gc::spmm
