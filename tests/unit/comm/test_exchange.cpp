// The exchange contract, for every model: over several phases, each rank
// receives in phase k exactly the messages its neighbours pushed to it in
// phase k (as a multiset, with the right sender index), however far ranks run
// ahead of each other; capacities are per phase; done() ends a phase on every
// rank. The expected messages are computed here from (seed, phase, sender,
// receiver), independently of the exchange. One sender's messages must
// arrive in the order it pushed them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "comm/chunk_fifo.hpp"
#include "comm/models.hpp"
#include "comm/work_share.hpp"
#include "core/rng.hpp"
#include "nbr/plan.hpp"

namespace gc {
namespace {

const Comm& world() {
  static Comm c = Comm::world();
  return c;
}

// The models; the hybrid model with a ring of two slots (so flow control
// runs all the time), by stores through shmem_ptr and by puts; and the
// models with bounded buffers (round-based: batches, one-sided packets:
// rings) at their tightest, one message per neighbour and round ("name:round1"),
// so that nearly every message waits for room.
std::vector<std::string> variants() {
  std::vector<std::string> out = exchange_models();
  if (GRAPHCOMM_HAVE_OPENSHMEM) out.insert(out.end(), {"hybrid:ring2", "hybrid:ring2-put"});
  for (const std::string& model : exchange_models())
    if (!model.starts_with("nsr") && model != "hybrid") out.push_back(model + ":round1");
  return out;
}
std::unique_ptr<Exchange> make_variant(const std::string& name, const Comm& comm,
                                       const Neighborhood& nb) {
  if (name == "hybrid:ring2") return make_hybrid_exchange(comm, nb, {2, true});
  if (name == "hybrid:ring2-put") return make_hybrid_exchange(comm, nb, {2, false});
  if (name.ends_with(":round1")) {
    Neighborhood bounded = nb;
    bounded.options.round_messages = 1;
    return make_exchange(name.substr(0, name.find(':')), comm, bounded);
  }
  return make_exchange(name, comm, nb);
}

// The neighbourhood of a rank: a ring plus rank 0 connected to everybody
// (symmetric), or everybody when `complete`.
std::vector<int> neighbours_of(int rank, int p, bool complete) {
  std::vector<int> out;
  for (int q = 0; q < p; ++q) {
    if (q == rank) continue;
    const bool ring = q == (rank + 1) % p || rank == (q + 1) % p;
    if (complete || ring || q == 0 || rank == 0) out.push_back(q);
  }
  return out;
}

// How many messages `from` sends `to` in `phase` (0..capacity), and message j.
std::uint64_t count_of(std::uint64_t seed, int phase, int from, int to, std::uint64_t capacity) {
  if (phase % 3 == 2) return 0;  // some phases carry nothing at all
  const auto index = static_cast<std::uint64_t>(phase * 1000003 + from * 1009 + to);
  return CounterRng(seed).words(Stream::edge_weight, index)[0] % (capacity + 1);
}
Message message_of(int phase, int from, int to, std::uint64_t j) {
  return {(static_cast<std::uint64_t>(phase) << 48) | (static_cast<std::uint64_t>(from) << 32) |
              static_cast<std::uint64_t>(to),
          j};
}

void run_phases(const std::string& model, bool complete, std::uint64_t capacity, int phases,
                bool reply) {
  const Comm& comm = world();
  const int p = comm.size(), me = comm.rank();
  Neighborhood nb;
  nb.ranks = neighbours_of(me, p, complete);
  // With replies every message may be answered once: twice the capacity.
  nb.capacity.assign(nb.ranks.size(), reply ? 2 * capacity : capacity);
  std::unique_ptr<Exchange> ex = make_variant(model, comm, nb);
  const std::uint64_t seed = 42;
  for (int phase = 0; phase < phases; ++phase) {
    // Some ranks run late, so others race into the next phase.
    if ((phase + me) % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
    std::vector<Message> expected, got;
    std::uint64_t originals_expected = 0, originals_got = 0;
    for (size_t i = 0; i < nb.ranks.size(); ++i) {
      const int q = nb.ranks[i];
      for (std::uint64_t j = 0; j < count_of(seed, phase, me, q, capacity); ++j) {
        ex->push(static_cast<int>(i), message_of(phase, me, q, j));
        // The reply to it (second word tagged) comes back from q.
        if (reply) expected.push_back(message_of(phase, me, q, j | (1ULL << 40)));
      }
      for (std::uint64_t j = 0; j < count_of(seed, phase, q, me, capacity); ++j) {
        expected.push_back(message_of(phase, q, me, j));
        ++originals_expected;
      }
    }
    // Replies: a received message is answered to its sender within the phase.
    std::map<std::pair<int, std::uint64_t>, std::uint64_t> last_j;
    auto handle = [&](int from, const Message& m) {
      const int sender = nb.ranks[static_cast<size_t>(from)];
      EXPECT_EQ(static_cast<int>((m.first >> 32) & 0xffff), (m.second >> 40) ? me : sender)
          << model << " phase " << phase << ": wrong sender index";
      // One sender's messages arrive in push order: j grows per sender and kind.
      const auto stream = std::make_pair(from, m.second >> 40);
      const std::uint64_t j = m.second & ((1ULL << 40) - 1);
      auto last = last_j.find(stream);
      EXPECT_TRUE(last == last_j.end() || last->second < j)
          << model << " phase " << phase << ": message overtaken";
      last_j[stream] = j;
      got.push_back(m);
      if (!(m.second >> 40)) ++originals_got;
      if (reply && !(m.second >> 40)) ex->push(from, Message{m.first, m.second | (1ULL << 40)});
    };
    // A phase that has not ended after a minute is hung (busy-polling MPI
    // libraries make a million rounds in a few seconds when oversubscribed).
    const double deadline = MPI_Wtime() + 60;
    while (true) {
      ex->evoke();
      ex->process(handle);
      // Settled once every message this rank must answer has arrived.
      if (ex->done(!reply || originals_got == originals_expected)) break;
      ASSERT_LT(MPI_Wtime(), deadline) << model << ": phase " << phase << " does not end";
    }
    auto key = [](const Message& a, const Message& b) {
      return std::tie(a.first, a.second) < std::tie(b.first, b.second);
    };
    std::sort(expected.begin(), expected.end(), key);
    std::sort(got.begin(), got.end(), key);
    ASSERT_EQ(got.size(), expected.size()) << model << " phase " << phase << " rank " << me;
    for (size_t k = 0; k < got.size(); ++k)
      ASSERT_TRUE(got[k].first == expected[k].first && got[k].second == expected[k].second)
          << model << " phase " << phase << " rank " << me << ": message " << k << " differs";
  }
  // Large phases make the tightest bounds wait for room; below the default
  // bound nothing waits (hybrid's ring is bounded by design, so it may).
  if (capacity >= 1000 && p > 1) {
    std::uint64_t waits = ex->counters().flow_waits, total = 0;
    MPI_Allreduce(&waits, &total, 1, MPI_UINT64_T, MPI_SUM, comm.get());
    if (model.ends_with(":round1") || model.starts_with("hybrid:ring2")) {
      EXPECT_GT(total, 0u) << model << ": flow control never held anything back";
    } else if (model != "hybrid") {
      EXPECT_EQ(total, 0u) << model << ": held back below its bound";
    }
  }
}

TEST(Exchange, PhasesOnRingAndHub) {
  for (const std::string& model : variants()) run_phases(model, false, 50, 7, false);
}

TEST(Exchange, PhasesOnCompleteGraphWithReplies) {
  for (const std::string& model : variants()) run_phases(model, true, 200, 5, true);
}

TEST(Exchange, LargePhases) {
  for (const std::string& model : variants()) run_phases(model, true, 20000, 3, false);
}

TEST(Exchange, LargePhasesWithReplies) {
  for (const std::string& model : variants()) run_phases(model, true, 3000, 3, true);
}

TEST(Exchange, ManyTinyPhases) {
  for (const std::string& model : variants()) run_phases(model, false, 2, 60, true);
}

// Every rank sends exactly `n` messages to every other rank in each of two
// phases, with capacities exactly what is sent: packet boundaries (one-sided
// models pack 256 messages) and buffers filled to the last byte. In a `chain`,
// message j+1 to a rank goes only once it acknowledged message j, so nearly
// every message travels in a packet of its own: the most header overhead a
// phase can have.
void run_exact(const std::string& model, std::uint64_t n, bool chain) {
  const Comm& comm = world();
  const int p = comm.size(), me = comm.rank();
  Neighborhood nb;
  nb.ranks = neighbours_of(me, p, true);
  const size_t k = nb.ranks.size();
  nb.capacity.assign(k, chain ? 2 * n : n);  // a chain acknowledges every message
  std::unique_ptr<Exchange> ex = make_variant(model, comm, nb);
  const std::string what = fmt::format("{} n={} chain={}", model, n, chain);
  constexpr std::uint64_t kAck = 1ULL << 40;
  for (int phase = 0; phase < 2; ++phase) {
    if ((phase + me) % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::vector<std::uint64_t> got(k * n, 0), acked(k, 0);
    std::uint64_t originals = 0, acks = 0;
    auto handle = [&](int from, const Message& m) {
      const auto i = static_cast<size_t>(from);
      const int q = nb.ranks[i];
      const std::uint64_t j = m.second & (kAck - 1);
      ASSERT_LT(j, n) << what;
      if (m.second & kAck) {  // q acknowledges my message j: send j + 1
        ASSERT_EQ(m.first, message_of(phase, me, q, 0).first) << what;
        ASSERT_EQ(j, acked[i]++) << what << ": acknowledgements out of order";
        ++acks;
        if (j + 1 < n) ex->push(from, message_of(phase, me, q, j + 1));
      } else {
        ASSERT_EQ(m.first, message_of(phase, q, me, 0).first) << what;
        ++got[i * n + j];
        ++originals;
        if (chain) ex->push(from, Message{m.first, m.second | kAck});
      }
    };
    for (size_t i = 0; i < k; ++i)
      for (std::uint64_t j = 0; j < (chain ? 1 : n); ++j)
        ex->push(static_cast<int>(i), message_of(phase, me, nb.ranks[i], j));
    const double deadline = MPI_Wtime() + 60;  // a phase still running then is hung
    while (true) {
      ex->evoke();
      ex->process(handle);
      const bool settled = !chain || (acks == k * n && originals == k * n);
      if (ex->done(settled)) break;
      ASSERT_LT(MPI_Wtime(), deadline) << what << ": phase " << phase << " does not end";
    }
    for (size_t x = 0; x < got.size(); ++x) {
      ASSERT_EQ(got[x], 1u) << what << " phase " << phase << " rank " << me << ": message " << x % n
                            << " from rank " << nb.ranks[x / n];
    }
    if (chain) {
      ASSERT_EQ(acks, k * n) << what << " phase " << phase << " rank " << me;
    }
  }
  if (p > 1) {
    EXPECT_GT(ex->buffer_bytes(), 0u) << what;
  }
}

TEST(Exchange, ExactCapacitiesAtPacketBoundaries) {
  for (const std::string& model : variants())
    for (std::uint64_t n : {1, 255, 256, 257, 512, 513, 1500}) run_exact(model, n, false);
}

TEST(Exchange, AcknowledgedChainsOnePacketPerMessage) {
  for (const std::string& model : variants()) run_exact(model, 40, true);
}

TEST(Exchange, EmptyNeighbourhoodEndsEveryPhase) {
  for (const std::string& model : variants()) {
    std::unique_ptr<Exchange> ex = make_variant(model, world(), Neighborhood{});
    for (int phase = 0; phase < 4; ++phase) {
      ex->evoke();
      ex->process([](int, const Message&) { FAIL() << "nothing was sent"; });
      const double deadline = MPI_Wtime() + 60;
      while (!ex->done(true)) {
        ex->evoke();
        ASSERT_LT(MPI_Wtime(), deadline) << model << ": empty phase does not end";
      }
    }
  }
}

// Quiescence (the round-based models): a phase stays open while some rank
// is not settled, though nothing is queued anywhere, and a settled rank may
// still answer what arrives. Rank r stays unsettled and silent for r + 2
// rounds, then pushes one message to each neighbour and settles; every
// message is answered, also by ranks that settled long before.
TEST(Exchange, QuiescenceKeepsAPhaseOpenForUnsettledRanks) {
  const Comm& comm = world();
  const int p = comm.size(), me = comm.rank();
  Neighborhood nb;
  nb.ranks = neighbours_of(me, p, false);
  nb.capacity.assign(nb.ranks.size(), 2);
  for (const std::string& model : variants()) {
    std::unique_ptr<Exchange> ex = make_variant(model, comm, nb);
    const std::string base = model.substr(0, model.find(':'));
    EXPECT_EQ(ex->detects_quiescence(), base == "rma" || base == "ncl" || base == "ncl-combined")
        << model;
    if (!ex->detects_quiescence()) continue;
    for (int phase = 0; phase < 3; ++phase) {
      std::uint64_t originals = 0, replies = 0;
      auto handle = [&](int from, const Message& m) {
        if (m.second == 0) {
          ++originals;
          ex->push(from, Message{m.first, 1});
        } else {
          ++replies;
        }
      };
      const double deadline = MPI_Wtime() + 60;
      for (int round = 0;; ++round) {
        if (round == me + 2)
          for (size_t i = 0; i < nb.ranks.size(); ++i)
            ex->push(static_cast<int>(i), Message{static_cast<std::uint64_t>(me), 0});
        ex->evoke();
        ex->process(handle);
        if (ex->done(round >= me + 2)) break;
        ASSERT_LT(MPI_Wtime(), deadline) << model << ": phase " << phase << " does not end";
      }
      EXPECT_EQ(originals, nb.ranks.size()) << model << " phase " << phase << " rank " << me;
      EXPECT_EQ(replies, nb.ranks.size()) << model << " phase " << phase << " rank " << me;
    }
  }
}

// ncl-combined forms friend groups only with enough ranks (registered at 8
// ranks as well): the contract must hold over a combining plan.
TEST(Exchange, NclCombinedOnCompleteGraphs) {
  run_phases("ncl-combined", true, 200, 5, true);
  run_phases("ncl-combined", true, 3000, 3, false);
  run_exact("ncl-combined", 300, false);
}

// ExchangeOptions::gathered_plan reaches ncl-combined's plan: built on rank 0
// it has no `considered` lists (nbr/plan.hpp) and otherwise the distributed
// build's figures (registered at 8 ranks, where groups form).
TEST(Exchange, NclCombinedPlanBuiltGatheredOnRequest) {
  const Comm& comm = world();
  Neighborhood nb;
  nb.ranks = neighbours_of(comm.rank(), comm.size(), true);
  nb.capacity.assign(nb.ranks.size(), 4);
  const std::unique_ptr<Exchange> distributed = make_exchange("ncl-combined", comm, nb);
  nb.options.gathered_plan = true;
  const std::unique_ptr<Exchange> gathered = make_exchange("ncl-combined", comm, nb);
  EXPECT_EQ(make_exchange("ncl", comm, nb)->combined_plan(), nullptr);
  ASSERT_NE(distributed->combined_plan(), nullptr);
  ASSERT_NE(gathered->combined_plan(), nullptr);
  const nbr::Plan& d = *distributed->combined_plan();
  const nbr::Plan& g = *gathered->combined_plan();
  EXPECT_TRUE(g.considered.empty());
  // The distributed build keeps a list per step run: with 8 ranks, one at least.
  if (comm.size() >= 8) {
    EXPECT_FALSE(d.considered.empty());
  }
  EXPECT_EQ(g.figures.steps, d.figures.steps);
  EXPECT_EQ(g.figures.groups, d.figures.groups);
  EXPECT_EQ(g.figures.messages, d.figures.messages);
  EXPECT_EQ(g.roles.size(), d.roles.size());
  EXPECT_EQ(g.direct_destinations, d.direct_destinations);
  EXPECT_EQ(g.direct_sources, d.direct_sources);
}

// OpenSHMEM's PEs are the job's ranks: its models refuse a part of the job,
// on every rank, naming themselves, and take a part that is the whole job (at
// one rank). Without OpenSHMEM they are refused as unavailable.
TEST(Exchange, OpenShmemModelsRefuseAPartOfTheJob) {
  const Comm part = world().split(world().rank() % 2, world().rank());
  const bool whole = part.size() == world().size();
  for (const char* model : {"shmem-fence", "shmem-hash", "hybrid"}) {
    const std::string expected =
        !GRAPHCOMM_HAVE_OPENSHMEM ? "OpenSHMEM not available"
        : whole                   ? ""
                : std::string(model) + ": OpenSHMEM models run on all ranks of the job only";
    std::string got;
    try {
      make_exchange(model, part, Neighborhood{});
    } catch (const Error& e) {
      got = e.what();
    }
    if (expected.empty())
      EXPECT_EQ(got, "") << model << " refused the whole job";
    else
      EXPECT_NE(got.find(expected), std::string::npos) << model << ": " << got;
  }
}

// The hybrid model's work sharing: every item a rank offers in a phase is
// claimed exactly once by the ranks of its node, an offer is gone when its
// phase ends, tables are readable by node peers, and push_to_rank reaches
// ranks outside the neighbourhood (seen with from_index
// kFromOutsideNeighborhood).
TEST(Exchange, HybridWorkShareClaimsEachItemOnce) {
  if (!GRAPHCOMM_HAVE_OPENSHMEM) {
    // Without OpenSHMEM (MPICH) the model is listed as unavailable and refused.
    const auto& missing = unavailable_exchange_models();
    EXPECT_TRUE(std::any_of(missing.begin(), missing.end(),
                            [](const auto& m) { return m.first == "hybrid"; }));
    EXPECT_THROW(make_exchange("hybrid", world(), Neighborhood{}), Error);
    return;
  }
  const Comm& comm = world();
  const int p = comm.size(), me = comm.rank();
  Neighborhood nb;
  nb.ranks = neighbours_of(me, p, false);
  nb.capacity.assign(nb.ranks.size(), 4);
  std::unique_ptr<Exchange> ex = make_exchange("hybrid", comm, nb);
  WorkShare* ws = ex->node_work_share();
  ASSERT_NE(ws, nullptr);
  ASSERT_EQ(ws->peers().size(), static_cast<size_t>(p - 1)) << "one node: every rank a peer";
  constexpr std::uint64_t kMaxItems = 2000;
  const int table = ws->add_table((500 + 37 * me) * sizeof(std::uint64_t));
  for (std::uint64_t phase = 0; phase < 3; ++phase) {
    const auto items = [&](int r) {
      return 100 + 37 * static_cast<std::uint64_t>(r) + 200 * phase;
    };
    auto* mine = reinterpret_cast<std::uint64_t*>(ws->table(table));
    for (std::uint64_t i = 0; i < items(me); ++i)
      mine[i] = phase << 32 | static_cast<unsigned>(me) << 16 | i;
    comm.barrier();
    for (int r = 0; r < p; ++r)
      ASSERT_FALSE(ws->claim(r, 5).has_value())
          << "rank " << r << " has not offered in phase " << phase;
    comm.barrier();
    ws->offer(items(me));
    comm.barrier();
    std::vector<std::uint64_t> counts(static_cast<size_t>(p) * kMaxItems, 0), total(counts.size());
    for (int k = 0; k < p; ++k) {
      const int r = (me + k) % p;
      const auto* theirs = reinterpret_cast<const std::uint64_t*>(ws->peer_table(table, r));
      while (auto chunk = ws->claim(r, 7)) {
        ASSERT_LE(chunk->second, items(r));
        for (std::uint64_t i = chunk->first; i < chunk->second; ++i) {
          ASSERT_EQ(theirs[i], phase << 32 | static_cast<unsigned>(r) << 16 | i);
          ++counts[static_cast<size_t>(r) * kMaxItems + i];
        }
      }
    }
    MPI_Allreduce(counts.data(), total.data(), static_cast<int>(counts.size()), MPI_UINT64_T,
                  MPI_SUM, comm.get());
    for (int r = 0; r < p; ++r)
      for (std::uint64_t i = 0; i < kMaxItems; ++i)
        ASSERT_EQ(total[static_cast<size_t>(r) * kMaxItems + i], i < items(r) ? 1u : 0u)
            << "phase " << phase << ": item " << i << " of rank " << r;
    // Everybody tells everybody else its rank, neighbour or not.
    for (int r = 0; r < p; ++r)
      if (r != me) ws->push_to_rank(r, Message{phase, static_cast<std::uint64_t>(me)});
    std::vector<int> heard(static_cast<size_t>(p), 0);
    auto handle = [&](int from, const Message& m) {
      const int sender = static_cast<int>(m.second);
      const auto at = std::find(nb.ranks.begin(), nb.ranks.end(), sender);
      EXPECT_EQ(from, at == nb.ranks.end() ? kFromOutsideNeighborhood
                                           : static_cast<int>(at - nb.ranks.begin()));
      EXPECT_EQ(m.first, phase);
      ++heard[static_cast<size_t>(sender)];
    };
    const double deadline = MPI_Wtime() + 60;
    while (true) {
      ex->evoke();
      ex->process(handle);
      if (ex->done(true)) break;
      ASSERT_LT(MPI_Wtime(), deadline) << "phase " << phase << " does not end";
    }
    for (int r = 0; r < p; ++r) EXPECT_EQ(heard[static_cast<size_t>(r)], r == me ? 0 : 1);
  }
  EXPECT_GT(ex->buffer_bytes(), 0u);
}

// The chunked queue of the flow control against std::deque: random pushes
// and pops of 1..3 chunks, pieces that cover exactly the first n elements,
// memory that follows the backlog.
TEST(ChunkFifo, BehavesAsADeque) {
  ChunkFifo<Message> fifo;
  std::deque<Message> reference;
  std::mt19937_64 rng(11);
  constexpr size_t kChunk = ChunkFifo<Message>::kChunk;
  std::uint64_t next = 0;
  size_t most = 0;  // the largest backlog
  for (int step = 0; step < 400; ++step) {
    const size_t pushes = rng() % (3 * kChunk);
    for (size_t j = 0; j < pushes; ++j) {
      fifo.push_back(Message{next, ~next});
      reference.push_back(Message{next, ~next});
      ++next;
    }
    ASSERT_EQ(fifo.size(), reference.size());
    most = std::max(most, reference.size());
    const size_t n = reference.empty() ? 0 : rng() % (reference.size() + 1);
    std::vector<Message> seen;
    size_t pieces = 0;
    fifo.for_each_piece(n, [&](std::span<const Message> piece) {
      ASSERT_FALSE(piece.empty());
      seen.insert(seen.end(), piece.begin(), piece.end());
      ++pieces;
    });
    ASSERT_EQ(seen, std::vector<Message>(reference.begin(), reference.begin() + n));
    EXPECT_LE(pieces, n / kChunk + 2);
    if (!reference.empty()) {
      EXPECT_EQ(fifo.front(), reference.front());
    }
    fifo.pop_front(n);
    reference.erase(reference.begin(), reference.begin() + n);
    ASSERT_EQ(fifo.size(), reference.size());
    ASSERT_EQ(fifo.empty(), reference.empty());
  }
  while (!reference.empty()) {
    ASSERT_EQ(fifo.front(), reference.front());
    fifo.pop_front();
    reference.pop_front();
  }
  EXPECT_TRUE(fifo.empty());
  // Memory follows the backlog: its chunks, a partial one at each end and the spare.
  EXPECT_LE(fifo.peak_bytes(), (most / kChunk + 3) * kChunk * sizeof(Message));
  EXPECT_GE(fifo.peak_bytes(), most * sizeof(Message));
}

}  // namespace
}  // namespace gc
