// One rank fails inside an exchange (its handler raises gc::Error) while the
// others wait for it; the program then ends as graphcomm's main does: the
// error line, then MPI_Abort. It must not hang on the way: the failing rank
// unwinds through the model's destructor, which must not enter a collective
// (MPI_Win_free, shmem_free) that the waiting ranks never reach.
//   one_rank_fails MODEL    (2 or more ranks; ctest expects the error line)
#include <algorithm>
#include <cstdio>
#include <string>

#include "comm/models.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"

int main(int argc, char** argv) {
  gc::MpiEnvironment mpi(&argc, &argv);
  const gc::Comm world = gc::Comm::world();
  const std::string model = argc > 1 ? argv[1] : "rma";
  try {
    gc::Neighborhood nb;  // a ring
    for (int r :
         {(world.rank() + world.size() - 1) % world.size(), (world.rank() + 1) % world.size()})
      if (r != world.rank() && (nb.ranks.empty() || nb.ranks.back() != r)) nb.ranks.push_back(r);
    std::sort(nb.ranks.begin(), nb.ranks.end());
    nb.ranks.erase(std::unique(nb.ranks.begin(), nb.ranks.end()), nb.ranks.end());
    nb.capacity.assign(nb.ranks.size(), 4);
    const bool fails = world.rank() == world.size() - 1;
    auto exchange = gc::make_exchange(model, world, nb);
    for (size_t i = 0; i < nb.ranks.size(); ++i)
      exchange->push(static_cast<int>(i), gc::Message{1, 2});
    bool finished = false;
    while (!finished) {
      exchange->evoke();
      exchange->process([&](int, const gc::Message&) {
        if (fails)
          gc::fail("injected failure in " + model + " on rank " + std::to_string(world.rank()));
      });
      finished = exchange->done(true);
    }
    // Models whose ranks announce the end before they handle what arrived
    // (nsr-agg) let the others finish the exchange: they wait here, as an
    // application's next collective would, for a rank that never comes.
    world.barrier();
    std::fprintf(stderr, "one_rank_fails: the exchange ended without the failure\n");
    return 3;
  } catch (const gc::Error& e) {
    std::fprintf(stderr, "one_rank_fails: error: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(world.get(), 1);
  }
  return 0;
}
