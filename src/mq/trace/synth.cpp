#include "mq/trace/synth.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "mq/engines/engine.hpp"

namespace gc::mq {

namespace {

// What one rank does, in global time order.
struct Action {
  enum class Kind : std::uint8_t { send, post, probe };
  Kind kind = Kind::send;
  int rank = 0;  // the sender (send) or the receiver (post, probe)
  int peer = 0;  // the destination (send) or the source asked for (post, probe)
  std::int32_t tag = 0;
  std::uint32_t comm = 0;
};

Action send(int from, int to, std::int32_t tag, std::uint32_t comm = 0) {
  return {Action::Kind::send, from, to, tag, comm};
}
Action post(int rank, std::int32_t source, std::int32_t tag, std::uint32_t comm = 0) {
  return {Action::Kind::post, rank, source, tag, comm};
}
Action probe(int rank, std::int32_t source, std::int32_t tag) {
  return {Action::Kind::probe, rank, source, tag};
}

// Random draws for one purpose of one seed: the mq_event stream, a sub-stream
// per purpose (random_events() uses subs 0 and 1).
class Draws {
 public:
  enum Purpose : std::uint64_t { heavy = 16, order = 17, tag = 18, wildcard = 19, probe = 20 };
  Draws(std::uint64_t seed, Purpose purpose) : rng_(seed), purpose_(purpose) {}
  std::uint64_t next() { return rng_.words(Stream::mq_event, index_++, purpose_)[0]; }
  double unit() { return CounterRng::to_unit(next()); }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  CounterRng rng_;
  std::uint64_t purpose_, index_ = 0;
};

// Runs actions through one linked-list engine per receiving rank and writes
// what each rank would have recorded: sends, posts, probes, and completions
// when a receive meets its message. One tick of the global clock per record.
class Script {
 public:
  explicit Script(int world_size) : records_(static_cast<size_t>(world_size)) {
    add_world_communicator(0);
  }

  // A communicator of every rank in world order, id `comm` (0: the world
  // itself; others: duplicates of it), recorded by every rank.
  void add_world_communicator(std::uint32_t comm) {
    Record c;
    c.kind = Record::Kind::comm;
    c.comm = comm;
    c.peer = static_cast<std::int32_t>(records_.size());
    for (int r = 0; r < c.peer; ++r) c.world_ranks.push_back(r);
    for (auto& rank : records_) {
      c.time = tick();
      rank.push_back(c);
    }
  }

  void run(const Action& a) {
    Record r;
    r.comm = a.comm;
    r.peer = a.peer;
    r.tag = a.tag;
    r.time = tick();
    switch (a.kind) {
      case Action::Kind::send: {
        r.kind = Record::Kind::send;
        records_.at(static_cast<size_t>(a.rank)).push_back(r);
        ++sends_;
        Receiver& to = receiver(a.peer);
        const Envelope message{a.comm, a.rank, a.tag};
        const Id id = to.messages.size();
        to.messages.push_back(message);
        const Id matched = to.engine->arrive(message, id);
        if (matched != kNoMatch) complete(a.peer, matched, message);
        break;
      }
      case Action::Kind::post: {
        r.kind = Record::Kind::post;
        records_.at(static_cast<size_t>(a.rank)).push_back(r);
        ++receives_;
        Receiver& me = receiver(a.rank);
        const Id id = me.receives++;
        const Id matched = me.engine->post({a.comm, a.peer, a.tag}, id);
        if (matched != kNoMatch) complete(a.rank, id, me.messages[matched]);
        break;
      }
      case Action::Kind::probe: {
        r.kind = Record::Kind::probe;
        Receiver& me = receiver(a.rank);
        const Id found = me.engine->probe({a.comm, a.peer, a.tag});
        r.found_peer = found == kNoMatch ? kNotFound : me.messages[found].source;
        r.found_tag = found == kNoMatch ? kNotFound : me.messages[found].tag;
        records_.at(static_cast<size_t>(a.rank)).push_back(r);
        ++probes_;
        break;
      }
    }
  }

  // `run_id`: what tells this run's files from another run's.
  SyntheticTrace finish(std::string summary, std::uint64_t run_id) {
    for (const auto& [rank, rx] : receivers_)
      if (rx.completed != rx.receives)
        fail(fmt::format("internal: synthetic rank {} left {} of {} receives pending", rank,
                         rx.receives - rx.completed, rx.receives));
    for (auto& rank : records_) {
      Record end;
      end.kind = Record::Kind::end;
      end.time = tick();
      rank.push_back(end);
    }
    SyntheticTrace t;
    t.world_size = static_cast<int>(records_.size());
    t.run_id = run_id;
    t.records = std::move(records_);
    t.summary = std::move(summary);
    t.sends = sends_;
    t.receives = receives_;
    t.probes = probes_;
    return t;
  }

 private:
  struct Receiver {
    std::unique_ptr<Engine> engine = make_engine("linked-list");
    std::vector<Envelope> messages;  // by arrival
    Id receives = 0, completed = 0;
  };

  Receiver& receiver(int rank) { return receivers_[rank]; }

  void complete(int rank, Id receive, const Envelope& message) {
    Record c;
    c.kind = Record::Kind::complete;
    c.index = receive;
    c.peer = message.source;
    c.tag = message.tag;
    c.time = tick();
    records_.at(static_cast<size_t>(rank)).push_back(c);
    ++receivers_[rank].completed;
  }

  // Microsecond-like steps, exact in a double.
  double tick() { return static_cast<double>(++clock_) * 0x1p-20; }

  std::vector<std::vector<Record>> records_;
  std::map<int, Receiver> receivers_;
  std::uint64_t clock_ = 0, sends_ = 0, receives_ = 0, probes_ = 0;
};

// A run id from the workload and its parameters: two synthetic runs share
// one only when they are the same run.
std::uint64_t run_id_of(std::uint64_t workload, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const auto w = CounterRng(a * 0x9E3779B97F4A7C15ULL ^ b).words(Stream::mq_event, c, workload);
  return w[0];
}

void check_ranks(int ranks, const char* workload) {
  if (ranks < 2 || ranks > (1 << 20))
    fail(fmt::format("mq synth {}: --ranks must be 2 to 1048576, not {}", workload, ranks));
}

void check_fraction(double f, const char* option) {
  if (!(f >= 0 && f <= 1)) fail(fmt::format("mq synth: {} must be in [0,1], not {}", option, f));
}

// Receive indexes that no message meets when rank 0 runs `step` alone
// (starting from empty queues, as every step of the generators does).
std::vector<size_t> unmatched_posts(const std::vector<Action>& step) {
  auto engine = make_engine("linked-list");
  std::vector<size_t> post_action;  // receive id -> action index
  std::vector<bool> matched;
  Id messages = 0;
  for (size_t i = 0; i < step.size(); ++i) {
    const Action& a = step[i];
    if (a.kind == Action::Kind::send) {
      const Id r = engine->arrive({a.comm, a.rank, a.tag}, messages++);
      if (r != kNoMatch) matched[r] = true;
    } else if (a.kind == Action::Kind::post) {
      const Id m = engine->post({a.comm, a.peer, a.tag}, post_action.size());
      post_action.push_back(i);
      matched.push_back(m != kNoMatch);
    }
  }
  std::vector<size_t> left;
  for (size_t r = 0; r < matched.size(); ++r)
    if (!matched[r]) left.push_back(post_action[r]);
  return left;
}

}  // namespace

SyntheticTrace synth_many_to_one(const ManyToOneOptions& o, std::uint64_t seed) {
  check_ranks(o.ranks, "many-to-one");
  check_fraction(o.heavy, "--heavy");
  if (o.messages < 1 || o.messages > 1000000)
    fail(fmt::format("mq synth many-to-one: --messages must be 1 to 1000000, not {}", o.messages));
  if (o.heavy_factor < 1 || o.heavy_factor > 10000)
    fail(fmt::format("mq synth many-to-one: --heavy-factor must be 1 to 10000, not {}",
                     o.heavy_factor));
  Draws heavy_draw(seed, Draws::heavy), order(seed, Draws::order);
  std::vector<std::uint64_t> per_step(static_cast<size_t>(o.ranks), 0);
  int heavy_senders = 0;
  for (int s = 1; s < o.ranks; ++s) {
    const bool heavy = heavy_draw.unit() < o.heavy;
    heavy_senders += heavy;
    per_step[static_cast<size_t>(s)] = heavy ? o.heavy_factor : 1;
  }
  Script script(o.ranks);
  for (std::uint64_t step = 0; step < o.messages; ++step) {
    const auto tag = static_cast<std::int32_t>(step % 32768);
    // Every sender's messages of the step, interleaved at random (a sender's
    // own messages stay in order: they are alike), then rank 0 receives them
    // one by one from specific sources in another random order.
    std::vector<int> sources;
    for (int s = 1; s < o.ranks; ++s)
      sources.insert(sources.end(), per_step[static_cast<size_t>(s)], s);
    order.shuffle(sources);
    for (int s : sources) script.run(send(s, 0, tag));
    order.shuffle(sources);
    for (int s : sources) script.run(post(0, s, tag));
  }
  return script.finish(
      fmt::format(
          "many-to-one: {} senders ({} heavy, {} messages a step) send to rank 0 for {} steps",
          o.ranks - 1, heavy_senders, o.heavy_factor, o.messages),
      run_id_of(32, seed, static_cast<std::uint64_t>(o.ranks) << 32 ^ o.messages,
                o.heavy_factor ^ std::bit_cast<std::uint64_t>(o.heavy)));
}

namespace {

// fds's meshes: first[r] is rank r's first mesh, first[ranks] the count.
std::vector<std::int64_t> fds_first_mesh(const FdsOptions& o, std::uint64_t seed) {
  // splitmix64, as bench/workloads/fds_like.c draws a rank's meshes.
  const auto splitmix = [](std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  };
  std::vector<std::int64_t> first(static_cast<size_t>(o.ranks) + 1, 0);
  const auto spread = static_cast<std::uint64_t>(o.meshes_max - o.meshes_min + 1);
  for (int r = 0; r < o.ranks; ++r)
    first[static_cast<size_t>(r) + 1] =
        first[static_cast<size_t>(r)] + o.meshes_min +
        static_cast<std::int64_t>(splitmix(seed * 0x100000001ULL + static_cast<std::uint64_t>(r)) %
                                  spread);
  return first;
}

}  // namespace

SyntheticTrace synth_fds(const FdsOptions& o, std::uint64_t seed) {
  check_ranks(o.ranks, "fds");
  if (o.steps < 1 || o.steps > 100000)
    fail(fmt::format("mq synth fds: --steps must be 1 to 100000, not {}", o.steps));
  if (o.meshes_min < 1 || o.meshes_max > 1000 || o.meshes_min > o.meshes_max)
    fail(fmt::format("mq synth fds: need 1 <= --meshes-min <= --meshes-max <= 1000, not {} and {}",
                     o.meshes_min, o.meshes_max));
  if (o.messages < 1 || o.messages > 1000)
    fail(fmt::format("mq synth fds: --messages must be 1 to 1000, not {}", o.messages));
  const std::vector<std::int64_t> first = fds_first_mesh(o, seed);
  const auto meshes_of = [&](int r) {
    return first[static_cast<size_t>(r) + 1] - first[static_cast<size_t>(r)];
  };
  Draws order(seed, Draws::order);
  Script script(o.ranks);
  script.add_world_communicator(kFdsCollectiveComm);
  std::vector<int> senders;
  for (int s = 1; s < o.ranks; ++s) senders.push_back(s);
  const auto quantities = static_cast<std::int32_t>(o.messages);
  for (std::uint64_t step = 0; step < o.steps; ++step) {
    // Rank 0 is the last to start receiving: each sender's burst (its
    // meshes' messages, then its gatherv contribution) is in its queues by
    // then, the bursts in random order.
    order.shuffle(senders);
    for (int s : senders) {
      for (std::int64_t m = 0; m < meshes_of(s); ++m)
        for (std::int32_t q = 0; q < quantities; ++q) script.run(send(s, 0, q));
      if (o.gatherv) script.run(send(s, 0, 0, kFdsCollectiveComm));
    }
    // Blocking receives mesh by mesh (so source by source), quantity by
    // quantity; then the linear gatherv's receives in rank order.
    for (int s = 1; s < o.ranks; ++s)
      for (std::int64_t m = 0; m < meshes_of(s); ++m)
        for (std::int32_t q = 0; q < quantities; ++q) script.run(post(0, s, q));
    if (o.gatherv)
      for (int s = 1; s < o.ranks; ++s) script.run(post(0, s, 0, kFdsCollectiveComm));
  }
  return script.finish(
      fmt::format("fds: {} ranks, {} meshes ({} to {} a rank), {} messages a mesh to rank 0 for "
                  "{} steps{}",
                  o.ranks, first.back(), o.meshes_min, o.meshes_max, o.messages, o.steps,
                  o.gatherv ? ", and a linear gatherv" : ""),
      run_id_of(35, seed, static_cast<std::uint64_t>(o.ranks) << 32 ^ o.steps,
                static_cast<std::uint64_t>(o.meshes_min) << 40 ^
                    static_cast<std::uint64_t>(o.meshes_max) << 20 ^ o.messages ^
                    (o.gatherv ? 1ULL << 63 : 0)));
}

SyntheticTrace synth_depth(const DepthOptions& o, std::uint64_t seed) {
  (void)seed;  // the microbenchmark is deterministic
  check_ranks(o.ranks, "depth");
  if (o.depth < 1 || o.depth > 10000000)
    fail(fmt::format("mq synth depth: --depth must be 1 to 10000000, not {}", o.depth));
  const auto senders = static_cast<std::uint64_t>(o.ranks - 1);
  // Message i: from sender 1 + i % senders, with a tag of its own per sender.
  auto source = [&](std::uint64_t i) { return static_cast<int>(1 + i % senders); };
  auto tag = [&](std::uint64_t i, std::uint64_t phase) {
    return static_cast<std::int32_t>((i / senders) * 2 + phase);
  };
  Script script(o.ranks);
  // PRQ depth: D receives wait; messages come in the reverse order.
  for (std::uint64_t i = 0; i < o.depth; ++i) script.run(post(0, source(i), tag(i, 0)));
  for (std::uint64_t i = o.depth; i-- > 0;) script.run(send(source(i), 0, tag(i, 0)));
  // UMQ depth: D messages wait; receives come in the reverse order.
  for (std::uint64_t i = 0; i < o.depth; ++i) script.run(send(source(i), 0, tag(i, 1)));
  for (std::uint64_t i = o.depth; i-- > 0;) script.run(post(0, source(i), tag(i, 1)));
  return script.finish(
      fmt::format(
          "depth: rank 0 holds {} posted receives, then {} unexpected messages, from {} senders",
          o.depth, o.depth, senders),
      run_id_of(33, 0, static_cast<std::uint64_t>(o.ranks), o.depth));
}

SyntheticTrace synth_wildcard(const WildcardOptions& o, std::uint64_t seed) {
  check_ranks(o.ranks, "wildcard");
  check_fraction(o.fraction, "--fraction");
  check_fraction(o.probes, "--probes");
  if (o.messages < 1 || o.messages > 1000000)
    fail(fmt::format("mq synth wildcard: --messages must be 1 to 1000000, not {}", o.messages));
  if (o.tags < 1 || o.tags > 32768)
    fail(fmt::format("mq synth wildcard: --tags must be 1 to 32768, not {}", o.tags));
  Draws order(seed, Draws::order), tags(seed, Draws::tag), wild(seed, Draws::wildcard),
      probing(seed, Draws::probe);
  Script script(o.ranks);
  std::uint64_t wildcards = 0, widened = 0;
  for (std::uint64_t step = 0; step < o.messages; ++step) {
    // One message from every sender; one receive meant for each, some with
    // wildcards; sends and receives interleaved at random, so that some
    // receives wait in the PRQ and some messages in the UMQ.
    std::vector<Action> sends, posts;
    for (int s = 1; s < o.ranks; ++s) {
      const auto t = static_cast<std::int32_t>(tags.below(static_cast<std::uint64_t>(o.tags)));
      sends.push_back(send(s, 0, t));
      Action p = post(0, s, t);
      if (wild.unit() < o.fraction) {
        const std::uint64_t kind = wild.below(3);  // source, tag or both
        if (kind != 1) p.peer = kAnySource;
        if (kind != 0) p.tag = kAnyTag;
        ++wildcards;
      }
      posts.push_back(p);
    }
    order.shuffle(sends);
    order.shuffle(posts);
    std::vector<Action> step_actions;
    size_t next_send = 0, next_post = 0;
    while (next_send < sends.size() || next_post < posts.size()) {
      const bool take_post =
          next_send == sends.size() || (next_post < posts.size() && order.unit() < 0.5);
      step_actions.push_back(take_post ? posts[next_post++] : sends[next_send++]);
    }
    // A wildcard can take a message a later specific receive was meant for,
    // leaving that receive without a message (a real program would hang):
    // such receives become MPI_ANY_SOURCE/MPI_ANY_TAG until every receive
    // meets a message (each round widens one more, so this ends).
    for (auto left = unmatched_posts(step_actions); !left.empty();
         left = unmatched_posts(step_actions)) {
      for (size_t i : left) {
        Action& p = step_actions[i];
        if (p.peer != kAnySource && p.tag != kAnyTag) ++wildcards;
        p.peer = kAnySource;
        p.tag = kAnyTag;
        ++widened;
      }
    }
    for (const Action& a : step_actions) {
      if (a.kind == Action::Kind::post && probing.unit() < o.probes)
        script.run(probe(0, a.peer, a.tag));
      script.run(a);
    }
  }
  const std::uint64_t receives = o.messages * static_cast<std::uint64_t>(o.ranks - 1);
  return script.finish(
      fmt::format(
          "wildcard: {} senders send to rank 0 for {} steps; {} of {} receives ({:.1f}%) with "
          "wildcards ({} widened to ANY_SOURCE/ANY_TAG so that every receive completes)",
          o.ranks - 1, o.messages, wildcards, receives,
          100.0 * static_cast<double>(wildcards) / static_cast<double>(receives), widened),
      run_id_of(34, seed, static_cast<std::uint64_t>(o.ranks) << 32 ^ o.messages,
                std::bit_cast<std::uint64_t>(o.fraction) ^ std::bit_cast<std::uint64_t>(o.probes) ^
                    static_cast<std::uint64_t>(o.tags)));
}

void write_synthetic_trace(const SyntheticTrace& trace, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) fail(fmt::format("{}: exists and is not a directory", dir));
    if (!fs::is_empty(dir, ec)) fail(fmt::format("{}: exists and is not empty", dir));
  }
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/" names "out"
  if (target.empty() || target == "." || target == "..")
    fail(fmt::format("{}: not a directory to create", dir));
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec))
    fail(fmt::format("{}: cannot create: {} is not a directory", dir, parent.string()));
  const std::string tmp = fmt::format("{}.tmp.{}", target.string(), static_cast<long>(getpid()));
  fs::remove_all(tmp, ec);
  if (!fs::create_directory(tmp, ec))
    fail(fmt::format("{}: cannot create: {}", tmp, ec ? ec.message() : "exists"));
  try {
    for (int r = 0; r < trace.world_size; ++r) {
      TraceWriter writer(fmt::format("{}/rank-{}.mqt", tmp, r), r, trace.world_size, trace.run_id);
      for (const Record& rec : trace.records[static_cast<size_t>(r)]) writer.add(rec);
      writer.close();
    }
    fs::rename(tmp, target, ec);
    if (ec) fail(fmt::format("{}: cannot rename into place: {}", dir, ec.message()));
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace gc::mq
