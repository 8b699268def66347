// The gathered build (plan_gathered.hpp). The distributed build's rounds
// pair a rank's round i with its partners' round i (partnership is
// symmetric), so running every rank's builder one round at a time, each
// taking the records its partners made for it in that round, is that build.
#include "nbr/plan_gathered.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "nbr/plan_builder.hpp"

namespace gc::nbr::detail {

namespace {

// Where rank `r` stands in the sorted list `of`; a build that wants what a
// rank did not make is a bug in the build, not in its input.
size_t index_of(const std::vector<int>& of, int r, int owner, const char* what) {
  auto it = std::lower_bound(of.begin(), of.end(), r);
  if (it == of.end() || *it != r)
    fail(fmt::format("gathered plan: rank {} is not in the {} of rank {}", r, what, owner));
  return static_cast<size_t>(it - of.begin());
}

void write_list(std::vector<std::int64_t>& out, const std::vector<int>& list) {
  out.push_back(static_cast<std::int64_t>(list.size()));
  out.insert(out.end(), list.begin(), list.end());
}

// A plan without its topology and `considered`, as integers.
std::vector<std::int64_t> encode(const Plan& plan) {
  const PlanFigures& f = plan.figures;
  std::vector<std::int64_t> out{static_cast<std::int64_t>(f.hyperedges),
                                static_cast<std::int64_t>(f.groups),
                                f.steps,
                                f.rounds,
                                static_cast<std::int64_t>(f.matching_messages),
                                static_cast<std::int64_t>(f.messages),
                                static_cast<std::int64_t>(f.default_messages),
                                plan.combines_anywhere,
                                static_cast<std::int64_t>(plan.roles.size())};
  for (const GroupRole& role : plan.roles) {
    out.push_back(role.step);
    write_list(out, role.members);
    for (const auto& a : role.assigned) write_list(out, a);
    for (const auto& b : role.my_blocks_for) write_list(out, b);
    write_list(out, role.own_positions);
  }
  write_list(out, plan.direct_destinations);
  write_list(out, plan.direct_sources);
  out.push_back(static_cast<std::int64_t>(plan.combined_in.size()));
  for (const CombinedIncoming& c : plan.combined_in) {
    out.push_back(c.step);
    out.push_back(c.via);
    write_list(out, c.positions);
  }
  return out;
}

Plan decode(const std::vector<std::int64_t>& in, Topology topology) {
  size_t at = 0;
  auto next = [&]() { return in.at(at++); };
  auto list = [&]() {
    std::vector<int> l(static_cast<size_t>(next()));
    for (int& x : l) x = static_cast<int>(next());
    return l;
  };
  Plan plan;
  plan.topology = std::move(topology);
  PlanFigures& f = plan.figures;
  f.hyperedges = static_cast<std::uint64_t>(next());
  f.groups = static_cast<std::uint64_t>(next());
  f.steps = static_cast<int>(next());
  f.rounds = static_cast<int>(next());
  f.matching_messages = static_cast<std::uint64_t>(next());
  f.messages = static_cast<std::uint64_t>(next());
  f.default_messages = static_cast<std::uint64_t>(next());
  plan.combines_anywhere = next() != 0;
  plan.roles.resize(static_cast<size_t>(next()));
  for (GroupRole& role : plan.roles) {
    role.step = static_cast<int>(next());
    role.members = list();
    for (size_t i = 0; i < role.members.size(); ++i) role.assigned.push_back(list());
    for (size_t i = 0; i < role.members.size(); ++i) role.my_blocks_for.push_back(list());
    role.own_positions = list();
  }
  plan.direct_destinations = list();
  plan.direct_sources = list();
  plan.combined_in.resize(static_cast<size_t>(next()));
  for (CombinedIncoming& c : plan.combined_in) {
    c.step = static_cast<int>(next());
    c.via = static_cast<int>(next());
    c.positions = list();
  }
  return plan;
}

}  // namespace

std::vector<Plan> build_every_plan(std::vector<Topology> topologies, const PlanOptions& options,
                                   const std::vector<int>& node) {
  const int p = static_cast<int>(topologies.size());
  std::vector<PlanBuilder> b;
  b.reserve(topologies.size());
  for (int r = 0; r < p; ++r)
    b.emplace_back(r, std::move(topologies[static_cast<size_t>(r)]), options, node, false);
  auto at = [&](int r) -> PlanBuilder& { return b[static_cast<size_t>(r)]; };
  for (int step = 0; step < options.max_steps; ++step) {
    for (PlanBuilder& x : b) x.begin_step(step);
    // 1. Each rank takes, from each active outgoing neighbour o, o's active
    // incoming list (which o sends to each of its active sources).
    for (int r = 0; r < p; ++r) {
      std::vector<std::vector<int>> lists;
      for (int o : at(r).out_ranks()) {
        index_of(at(o).in_ranks(), r, o, "active sources");
        lists.push_back(at(o).in_ranks());
      }
      at(r).take_lists(lists);
    }
    // 3. The matching, one round of every rank at a time.
    std::vector<std::vector<int>> out(static_cast<size_t>(p)), in(static_cast<size_t>(p));
    std::vector<char> active(static_cast<size_t>(p));
    for (bool any = true; any;) {
      any = false;
      for (int r = 0; r < p; ++r) {
        active[static_cast<size_t>(r)] = at(r).matching();
        if (!at(r).matching()) continue;
        any = true;
        out[static_cast<size_t>(r)] = at(r).records();
      }
      for (int r = 0; r < p; ++r) {
        if (!active[static_cast<size_t>(r)]) continue;
        std::vector<int>& mine = in[static_cast<size_t>(r)];
        mine.clear();
        for (int q : at(r).partners()) {
          if (!active[static_cast<size_t>(q)])
            fail(fmt::format("gathered plan: rank {} waits for rank {}, which has left", r, q));
          const size_t j = index_of(at(q).partners(), r, q, "partners");
          const auto from =
              out[static_cast<size_t>(q)].begin() + static_cast<std::ptrdiff_t>(j * kRecord);
          mine.insert(mine.end(), from, from + kRecord);
        }
      }
      for (int r = 0; r < p; ++r)
        if (active[static_cast<size_t>(r)]) at(r).take_records(in[static_cast<size_t>(r)]);
    }
    const bool any_formed =
        std::any_of(b.begin(), b.end(), [](const auto& x) { return x.formed(); });
    std::vector<std::vector<std::vector<int>>> notes;
    for (PlanBuilder& x : b) notes.push_back(x.notes(any_formed));
    for (int r = 0; r < p; ++r) {
      std::vector<std::vector<int>> heard;
      for (int s : at(r).in_ranks())
        heard.push_back(notes[static_cast<size_t>(s)]
                             [index_of(at(s).out_ranks(), r, s, "active destinations")]);
      at(r).take_notes(heard);
    }
    if (!any_formed) break;
  }
  std::vector<Plan> plans;
  for (PlanBuilder& x : b) plans.push_back(x.finish());
  return plans;
}

Plan build_gathered(MPI_Comm comm_handle, Topology mine, const PlanOptions& options,
                    const std::vector<int>& node) {
  const Comm comm = Comm::borrow(comm_handle);
  const int p = comm.size();
  // Each rank's lists as [sources..., destinations...] with their lengths.
  std::vector<int> lists = mine.sources;
  lists.insert(lists.end(), mine.destinations.begin(), mine.destinations.end());
  const std::vector<int> lengths =
      gatherv(comm,
              std::vector<int>{static_cast<int>(mine.sources.size()),
                               static_cast<int>(mine.destinations.size())},
              0);
  const std::vector<int> all = gatherv(comm, lists, 0);
  std::vector<std::int64_t> encoded;
  std::vector<int> counts, displs;
  collectively(comm.get(), [&] {
    if (comm.rank() != 0) return;
    std::vector<Topology> topologies(static_cast<size_t>(p));
    size_t at = 0;
    for (size_t r = 0; r < topologies.size(); ++r) {
      const auto s = static_cast<size_t>(lengths[2 * r]),
                 d = static_cast<size_t>(lengths[2 * r + 1]);
      topologies[r].sources.assign(all.begin() + static_cast<std::ptrdiff_t>(at),
                                   all.begin() + static_cast<std::ptrdiff_t>(at + s));
      topologies[r].destinations.assign(all.begin() + static_cast<std::ptrdiff_t>(at + s),
                                        all.begin() + static_cast<std::ptrdiff_t>(at + s + d));
      at += s + d;
    }
    for (const Plan& plan : build_every_plan(std::move(topologies), options, node)) {
      const std::vector<std::int64_t> e = encode(plan);
      counts.push_back(checked_count(e.size(), "gathered plan size"));
      encoded.insert(encoded.end(), e.begin(), e.end());
    }
    std::uint64_t total = 0;
    displs = displacements_of(counts, total, "gathered plans");
  });
  int count = 0;
  MPI_Scatter(counts.data(), 1, MPI_INT, &count, 1, MPI_INT, 0, comm.get());
  std::vector<std::int64_t> mine_encoded(static_cast<size_t>(count));
  MPI_Scatterv(encoded.data(), counts.data(), displs.data(), MPI_INT64_T, mine_encoded.data(),
               count, MPI_INT64_T, 0, comm.get());
  return decode(mine_encoded, std::move(mine));
}

}  // namespace gc::nbr::detail
