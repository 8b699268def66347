// --partition scotch: PT-Scotch's distributed k-way graph partition
// (SCOTCH_dgraphPart; Chevalier & Pellegrini, Parallel Computing 2008) on
// the graph as it lies, one part per rank, through a context that asks for
// deterministic behaviour with a fixed random seed (--seed).
#include <cstdarg>
#include <cstdio>

#include <fmt/format.h>

#include "graph/partitioners.hpp"

#if GRAPHCOMM_HAVE_PTSCOTCH
#include <ptscotch.h>

// PT-Scotch reports errors through these functions, which the application
// provides (libptscotcherr's print to stderr). Ours keep the first message, so
// that it ends up in the one error line graphcomm prints.
namespace {
thread_local std::string scotch_message;
void keep(const char* format, va_list args) {
  if (!scotch_message.empty()) return;
  char buffer[512];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  scotch_message = buffer;
}
}  // namespace

extern "C" {
void SCOTCH_errorProg(const char* const) {}
void SCOTCH_errorPrint(const char* const format, ...) {
  va_list args;
  va_start(args, format);
  keep(format, args);
  va_end(args);
}
void SCOTCH_errorPrintW(const char* const, ...) {}  // warnings: not errors
}
#endif

namespace gc {

#if GRAPHCOMM_HAVE_PTSCOTCH

std::string scotch_unavailable() {
  return "";
}

namespace {

// Owners of PT-Scotch objects, released on every path.
struct ScotchObjects {
  SCOTCH_Context context;
  SCOTCH_Dgraph graph, bound;
  SCOTCH_Strat strategy;
  bool context_ok = false, graph_ok = false, bound_ok = false, strategy_ok = false;
  ~ScotchObjects() {
    if (strategy_ok) SCOTCH_stratExit(&strategy);
    if (bound_ok) SCOTCH_dgraphExit(&bound);
    if (graph_ok) SCOTCH_dgraphExit(&graph);
    if (context_ok) SCOTCH_contextExit(&context);
  }
};

void check(int status, const char* call) {
  if (status != 0) {
    std::string why = scotch_message.empty() ? "no message" : scotch_message;
    scotch_message.clear();
    fail(fmt::format("--partition scotch: PT-Scotch failed in {}: {}", call, why));
  }
}

}  // namespace

std::vector<int> partition_scotch(const Comm& comm, const DistGraph& g, Balance balance,
                                  std::uint64_t seed) {
  const lid_t owned = g.owned_count();
  const auto limit = static_cast<std::uint64_t>(SCOTCH_NUMMAX);
  if (g.global_vertex_count() > limit || 2 * g.global_edge_count() > limit)
    fail_everywhere("--partition scotch: the graph is too large for this PT-Scotch's integers");
  std::vector<SCOTCH_Num> vertloc(owned + 1), edgeloc(g.local_edge_count()), veloloc;
  for (lid_t l = 0; l <= owned; ++l) vertloc[l] = static_cast<SCOTCH_Num>(g.offsets()[l]);
  for (eid_t e = 0; e < g.local_edge_count(); ++e)
    edgeloc[e] = static_cast<SCOTCH_Num>(g.global_id(g.targets()[e]));
  if (balance == Balance::edges) {
    veloloc.resize(owned);
    for (lid_t l = 0; l < owned; ++l) veloloc[l] = static_cast<SCOTCH_Num>(g.degree(l) + 1);
  }
  std::vector<SCOTCH_Num> part(owned);
  const SCOTCH_Num parts = comm.size();
  ScotchObjects s;
  collectively(comm.get(), [&] {
    scotch_message.clear();
    check(SCOTCH_contextInit(&s.context), "SCOTCH_contextInit");
    s.context_ok = true;
    // One thread: Debian's PT-Scotch is built with SCOTCH_PTHREAD_MPI, whose
    // threads (the fold-dup halves of the recursive bipartitioning) make MPI
    // calls at once, which needs MPI_THREAD_MULTIPLE; we initialize MPI for
    // one thread, and with more threads dgraphPart deadlocked at 4 ranks.
    check(SCOTCH_contextThreadSpawn(&s.context, 1, nullptr), "SCOTCH_contextThreadSpawn");
    check(SCOTCH_contextOptionSetNum(&s.context, SCOTCH_OPTIONNUMDETERMINISTIC, 1),
          "SCOTCH_contextOptionSetNum");
    check(SCOTCH_contextOptionSetNum(&s.context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1),
          "SCOTCH_contextOptionSetNum");
    SCOTCH_contextRandomSeed(&s.context, static_cast<SCOTCH_Num>(seed % limit));
    check(SCOTCH_dgraphInit(&s.graph, comm.get()), "SCOTCH_dgraphInit");
    s.graph_ok = true;
  });
  collectively(comm.get(), [&] {
    check(SCOTCH_dgraphBuild(
              &s.graph, 0, static_cast<SCOTCH_Num>(owned), static_cast<SCOTCH_Num>(owned),
              vertloc.data(), nullptr, veloloc.empty() ? nullptr : veloloc.data(), nullptr,
              static_cast<SCOTCH_Num>(edgeloc.size()), static_cast<SCOTCH_Num>(edgeloc.size()),
              edgeloc.data(), nullptr, nullptr),
          "SCOTCH_dgraphBuild");
  });
  collectively(comm.get(), [&] {
    check(SCOTCH_contextBindDgraph(&s.context, &s.graph, &s.bound), "SCOTCH_contextBindDgraph");
    s.bound_ok = true;
    check(SCOTCH_stratInit(&s.strategy), "SCOTCH_stratInit");
    s.strategy_ok = true;
    check(SCOTCH_stratDgraphMapBuild(&s.strategy, SCOTCH_STRATDEFAULT, parts, parts, 0.05),
          "SCOTCH_stratDgraphMapBuild");
  });
  collectively(comm.get(), [&] {
    check(SCOTCH_dgraphPart(&s.bound, parts, &s.strategy, part.data()), "SCOTCH_dgraphPart");
  });
  return std::vector<int>(part.begin(), part.end());
}

#else

std::string scotch_unavailable() {
  return GRAPHCOMM_PTSCOTCH_MISSING;
}

std::vector<int> partition_scotch(const Comm&, const DistGraph&, Balance, std::uint64_t) {
  fail_everywhere(std::string("--partition scotch: ") + GRAPHCOMM_PTSCOTCH_MISSING);
}

#endif

}  // namespace gc
