// Building a collaborative plan over MPI: every rank runs its side of the
// algorithm (plan_builder.cpp, where the paper's Algorithms 1-3 are
// described) and exchanges its lists, records and notes with the ranks the
// builder names; or, gathered, one rank runs every side (plan_gathered.cpp).
#include "nbr/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/dup.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/neighborhood.hpp"
#include "core/wait.hpp"
#include "nbr/plan_builder.hpp"
#include "nbr/plan_gathered.hpp"

namespace gc::nbr {

namespace {

constexpr int kTagLists = 1, kTagNotify = 2, kTagRequest = 3;

bool has_repeats(std::vector<int> list) {
  std::sort(list.begin(), list.end());
  return std::adjacent_find(list.begin(), list.end()) != list.end();
}

// Each rank sends `send[d]` to rank `to[d]` and receives one list from each
// of `from` (any length): a sparse exchange on a private communicator.
std::vector<std::vector<int>> exchange_lists(MPI_Comm comm, int tag, const std::vector<int>& to,
                                             const std::vector<std::vector<int>>& send,
                                             const std::vector<int>& from) {
  Requests requests(to.size());
  for (size_t d = 0; d < to.size(); ++d)
    MPI_Isend(send[d].data(), static_cast<int>(send[d].size()), MPI_INT, to[d], tag, comm,
              requests.next());
  std::vector<std::vector<int>> received(from.size());
  for (size_t s = 0; s < from.size(); ++s) {
    MPI_Status status;
    MPI_Probe(from[s], tag, comm, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_INT, &count);
    received[s].resize(static_cast<size_t>(count));
    MPI_Recv(received[s].data(), count, MPI_INT, from[s], tag, comm, MPI_STATUS_IGNORE);
  }
  requests.wait();
  return received;
}

// One matching round: a record to each partner, one from each.
std::vector<int> exchange_records(MPI_Comm comm, const std::vector<int>& partners,
                                  const std::vector<int>& out) {
  constexpr int kRecord = detail::kRecord;
  const size_t c = partners.size();
  std::vector<int> in(c * kRecord);
  Requests requests(2 * c);
  for (size_t q = 0; q < c; ++q)
    MPI_Irecv(in.data() + q * kRecord, kRecord, MPI_INT, partners[q], kTagRequest, comm,
              requests.next());
  for (size_t q = 0; q < c; ++q)
    MPI_Isend(out.data() + q * kRecord, kRecord, MPI_INT, partners[q], kTagRequest, comm,
              requests.next());
  requests.wait();
  return in;
}

Plan build_distributed(MPI_Comm comm, Topology topology, const PlanOptions& options,
                       std::vector<int> node) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  detail::PlanBuilder b(me, std::move(topology), options, std::move(node), true);
  for (int step = 0; step < options.max_steps; ++step) {
    b.begin_step(step);
    b.take_lists(exchange_lists(comm, kTagLists, b.in_ranks(),
                                std::vector<std::vector<int>>(b.in_ranks().size(), b.in_ranks()),
                                b.out_ranks()));
    while (b.matching()) b.take_records(exchange_records(comm, b.partners(), b.records()));
    int formed = b.formed(), any_formed = 0;
    MPI_Allreduce(&formed, &any_formed, 1, MPI_INT, MPI_MAX, comm);
    const std::vector<std::vector<int>> notes = b.notes(any_formed != 0);
    if (!b.take_notes(exchange_lists(comm, kTagNotify, b.out_ranks(), notes, b.in_ranks()))) break;
  }
  return b.finish();
}

}  // namespace

std::vector<int> consecutive_nodes(int ranks, int ranks_per_node) {
  std::vector<int> node(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) node[static_cast<size_t>(r)] = r / ranks_per_node;
  return node;
}

std::vector<int> node_of_every_rank(MPI_Comm comm, int ranks_per_node) {
  int p = 0, me = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  if (ranks_per_node > 0) return consecutive_nodes(p, ranks_per_node);
  std::vector<int> node(static_cast<size_t>(p));
  MPI_Comm shared_handle = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared_handle);
  const Comm shared = Comm::adopt(shared_handle);
  int leader = me;  // the lowest rank of the node names it
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared.get());
  MPI_Allgather(&leader, 1, MPI_INT, node.data(), 1, MPI_INT, comm);
  return node;
}

Mode parse_mode(const std::string& name) {
  if (name == "agnostic") return Mode::agnostic;
  if (name == "aware") return Mode::aware;
  fail_everywhere(fmt::format("unknown mode '{}' (agnostic or aware)", name));
}

Topology topology_of(MPI_Comm comm) {
  if (!is_dist_graph(comm))
    fail_everywhere("collaborative neighborhood collectives need a distributed-graph communicator");
  Topology t;
  dist_graph_neighbors(comm, t.sources, t.destinations);
  return t;
}

Plan build_plan(MPI_Comm user_comm, const PlanOptions& options) {
  const double start = MPI_Wtime();
  Topology topology = topology_of(user_comm);
  detail::check_options(options);
  const Comm owned = Comm::adopt(duplicate(user_comm));
  const MPI_Comm comm = owned.get();
  int repeats = has_repeats(topology.sources) || has_repeats(topology.destinations);
  MPI_Allreduce(MPI_IN_PLACE, &repeats, 1, MPI_INT, MPI_MAX, comm);
  std::vector<int> node = options.mode == Mode::aware
                              ? node_of_every_rank(comm, options.ranks_per_node)
                              : std::vector<int>{};
  Plan plan = options.gathered
                  ? detail::build_gathered(comm, std::move(topology), options, std::move(node))
                  : build_distributed(comm, std::move(topology), options, std::move(node));
  plan.repeats_anywhere = repeats != 0;
  plan.figures.build_seconds = MPI_Wtime() - start;
  return plan;
}

std::vector<Plan> plans_of_every_rank(std::vector<Topology> topologies,
                                      const PlanOptions& options) {
  const double start = MPI_Wtime();
  detail::check_options(options);
  std::vector<int> node;
  if (options.mode == Mode::aware) {
    if (options.ranks_per_node < 1)
      fail("an aware plan for ranks that are not running needs their nodes: ranks per node");
    node = consecutive_nodes(static_cast<int>(topologies.size()), options.ranks_per_node);
  }
  const bool repeats = std::any_of(topologies.begin(), topologies.end(), [](const Topology& t) {
    return has_repeats(t.sources) || has_repeats(t.destinations);
  });
  std::vector<Plan> plans = detail::build_every_plan(std::move(topologies), options, node);
  const double seconds = MPI_Wtime() - start;
  for (Plan& plan : plans) {
    plan.repeats_anywhere = repeats;
    plan.figures.build_seconds = seconds;
  }
  return plans;
}

}  // namespace gc::nbr
