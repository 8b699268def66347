// Reading trace files (format in docs/mq-trace.md): every length, kind and
// value is checked before it is used, so that a corrupt or truncated file
// gives one line "PATH: what, at byte N" and never a crash; a run's files
// are checked to belong together; and a text dump, one record a line.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "mq/trace/trace.hpp"
#include "mq/trace/trace_codec.hpp"

namespace gc::mq {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// What a rank's records so far allow the next one to say.
class Validator {
 public:
  Validator(const std::string& path, const RankTrace& t) : path_(path), trace_(t) {}

  // Checks `r`, read at byte `at`; throws gc::Error naming the problem.
  void check(const Record& r, std::uint64_t at) {
    if (ended_) bad(at, "a record after the end record");
    if (!std::isfinite(r.time)) bad(at, fmt::format("impossible time {}", r.time));
    switch (r.kind) {
      case Record::Kind::comm:
        check_comm(r, at);
        break;
      case Record::Kind::send: {
        const int size = comm_size(r.comm, at);
        if (r.peer < 0 || r.peer >= size)
          bad(at,
              fmt::format("send to rank {} of communicator {} of {} ranks", r.peer, r.comm, size));
        if (r.tag < 0) bad(at, fmt::format("send with tag {}", r.tag));
        break;
      }
      case Record::Kind::post:
        check_envelope(r, at, "receive");
        posts_.push_back({r.comm, r.peer, r.tag, State::pending});
        break;
      case Record::Kind::probe: {
        check_envelope(r, at, "probe");
        if (r.found_peer == kNotFound && r.found_tag == kNotFound) break;
        const int size = comm_size(r.comm, at);
        if (r.found_peer < 0 || r.found_peer >= size || r.found_tag < 0 ||
            !accepts({r.comm, r.peer, r.tag}, {r.comm, r.found_peer, r.found_tag}))
          bad(at, fmt::format("probe for source {} tag {} found source {} tag {}", r.peer, r.tag,
                              r.found_peer, r.found_tag));
        break;
      }
      case Record::Kind::complete: {
        Post& p = pending_post(r, at, "completion");
        const int size = comm_size(p.comm, at);
        if (r.peer < 0 || r.peer >= size || r.tag < 0 ||
            !accepts({p.comm, p.source, p.tag}, {p.comm, r.peer, r.tag}))
          bad(at, fmt::format("receive {} (source {}, tag {}) completed with source {} tag {}",
                              r.index, p.source, p.tag, r.peer, r.tag));
        p.state = State::completed;
        break;
      }
      case Record::Kind::cancel:
        pending_post(r, at, "cancel").state = State::cancelled;
        break;
      case Record::Kind::end:
        ended_ = true;
        break;
    }
  }

  [[noreturn]] void bad(std::uint64_t at, const std::string& what) const {
    fail(fmt::format("{}: {}, at byte {}", path_, what, at));
  }

 private:
  enum class State : std::uint8_t { pending, completed, cancelled };
  struct Post {
    std::uint32_t comm;
    std::int32_t source, tag;
    State state;
  };

  void check_comm(const Record& r, std::uint64_t at) {
    if (r.comm >= codec::kMaxCommId)
      bad(at, fmt::format("communicator id {} (at most {})", r.comm, codec::kMaxCommId - 1));
    if (sizes_.count(r.comm)) bad(at, fmt::format("communicator {} defined twice", r.comm));
    bool member = false;
    seen_.assign(static_cast<std::size_t>(trace_.world_size), false);
    for (std::int32_t w : r.world_ranks) {
      if (w < 0 || w >= trace_.world_size)
        bad(at,
            fmt::format("communicator {} has world rank {} of {}", r.comm, w, trace_.world_size));
      if (seen_[static_cast<std::size_t>(w)])
        bad(at, fmt::format("communicator {} lists world rank {} twice", r.comm, w));
      seen_[static_cast<std::size_t>(w)] = true;
      member |= w == trace_.rank;
    }
    if (!member)
      bad(at, fmt::format("communicator {} without this rank ({})", r.comm, trace_.rank));
    sizes_[r.comm] = static_cast<int>(r.world_ranks.size());
  }

  int comm_size(std::uint32_t comm, std::uint64_t at) const {
    const auto it = sizes_.find(comm);
    if (it == sizes_.end()) bad(at, fmt::format("communicator {} used before its record", comm));
    return it->second;
  }

  void check_envelope(const Record& r, std::uint64_t at, const char* what) const {
    const int size = comm_size(r.comm, at);
    if ((r.peer != kAnySource && (r.peer < 0 || r.peer >= size)) || (r.tag != kAnyTag && r.tag < 0))
      bad(at, fmt::format("{} for source {} tag {} on communicator {} of {} ranks", what, r.peer,
                          r.tag, r.comm, size));
  }

  Post& pending_post(const Record& r, std::uint64_t at, const char* what) {
    if (r.index >= posts_.size())
      bad(at, fmt::format("{} of receive {}, but {} were posted", what, r.index, posts_.size()));
    Post& p = posts_[r.index];
    if (p.state != State::pending)
      bad(at, fmt::format("{} of receive {}, which had already {}", what, r.index,
                          p.state == State::completed ? "completed" : "been cancelled"));
    return p;
  }

  const std::string& path_;
  const RankTrace& trace_;
  std::unordered_map<std::uint32_t, int> sizes_;
  std::vector<Post> posts_;
  std::vector<bool> seen_;
  bool ended_ = false;
};

// Decodes the records of one chunk (`data`, `n` bytes, read at file offset `base`).
void decode_chunk(const unsigned char* data, std::size_t n, std::uint64_t base,
                  Validator& validator, RankTrace& t) {
  std::size_t i = 0;
  while (i < n) {
    const std::uint64_t at = base + i;
    const std::uint8_t kind = data[i];
    const std::size_t fixed = codec::fixed_bytes(kind);
    if (fixed == 0) validator.bad(at, fmt::format("unknown record kind {}", kind));
    if (n - i < fixed) validator.bad(at, "a record crosses the end of its chunk");
    const unsigned char* p = data + i + 1;
    Record r;
    r.kind = static_cast<Record::Kind>(kind);
    switch (r.kind) {
      case Record::Kind::comm: {
        r.comm = codec::get_u32(p);
        const std::int32_t size = codec::get_i32(p + 4);
        if (size <= 0 || size > t.world_size)
          validator.bad(at, fmt::format("communicator {} of {} ranks in a world of {}", r.comm,
                                        size, t.world_size));
        const std::size_t members = static_cast<std::size_t>(size);
        if ((n - i - fixed) / 4 < members)
          validator.bad(at, "a record crosses the end of its chunk");
        r.peer = size;
        r.world_ranks.resize(members);
        for (std::size_t m = 0; m < members; ++m) r.world_ranks[m] = codec::get_i32(p + 8 + 4 * m);
        i += fixed + 4 * members;
        break;
      }
      case Record::Kind::send:
      case Record::Kind::post:
        r.comm = codec::get_u32(p);
        r.peer = codec::get_i32(p + 4);
        r.tag = codec::get_i32(p + 8);
        r.time = codec::get_f64(p + 12);
        i += fixed;
        break;
      case Record::Kind::complete:
        r.index = codec::get_u64(p);
        r.peer = codec::get_i32(p + 8);
        r.tag = codec::get_i32(p + 12);
        r.time = codec::get_f64(p + 16);
        i += fixed;
        break;
      case Record::Kind::probe:
        r.comm = codec::get_u32(p);
        r.peer = codec::get_i32(p + 4);
        r.tag = codec::get_i32(p + 8);
        r.found_peer = codec::get_i32(p + 12);
        r.found_tag = codec::get_i32(p + 16);
        r.time = codec::get_f64(p + 20);
        i += fixed;
        break;
      case Record::Kind::cancel:
        r.index = codec::get_u64(p);
        r.time = codec::get_f64(p + 8);
        i += fixed;
        break;
      case Record::Kind::end:
        r.time = codec::get_f64(p);
        i += fixed;
        break;
    }
    validator.check(r, at);
    if (r.kind == Record::Kind::end) t.complete = true;
    t.records.push_back(std::move(r));
  }
}

std::string any_text(std::int32_t v) {
  return v == kAnySource ? std::string("ANY") : std::to_string(v);
}

// rank-R.mqt -> R; -1 for any other name.
long rank_of_name(const std::string& name) {
  if (!name.starts_with("rank-") || !name.ends_with(".mqt") || name.size() <= 9) return -1;
  const std::string digits = name.substr(5, name.size() - 9);
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(digits);
}

}  // namespace

RankTrace read_trace(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) fail(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::FILE* f = file.get();
  RankTrace t;
  t.path = path;
  unsigned char header[codec::kHeaderBytes];
  const std::size_t got = std::fread(header, 1, sizeof header, f);
  if (std::memcmp(header, codec::kMagic, std::min(got, sizeof codec::kMagic)) != 0 || got == 0)
    fail(fmt::format("{}: not a graphcomm matching trace (no GCMQTRC magic), at byte 0", path));
  if (got < sizeof header)
    fail(fmt::format("{}: truncated header ({} of {} bytes), at byte {}", path, got, sizeof header,
                     got));
  const std::uint32_t version = codec::get_u32(header + 8);
  if (version != kTraceVersion)
    fail(fmt::format("{}: trace format version {}, this reader knows version {}, at byte 8", path,
                     version, kTraceVersion));
  t.rank = codec::get_i32(header + 12);
  t.world_size = codec::get_i32(header + 16);
  t.run_id = codec::get_u64(header + 20);
  if (t.world_size < 1 || t.world_size > codec::kMaxWorldSize)
    fail(fmt::format("{}: impossible world size {}, at byte 16", path, t.world_size));
  if (t.rank < 0 || t.rank >= t.world_size)
    fail(fmt::format("{}: impossible rank {} of {}, at byte 12", path, t.rank, t.world_size));

  Validator validator(path, t);
  std::vector<unsigned char> chunk;
  std::uint64_t offset = sizeof header;
  for (;;) {
    unsigned char head[codec::kChunkHeaderBytes];
    const std::size_t h = std::fread(head, 1, sizeof head, f);
    if (h == 0 && std::feof(f)) break;  // a file ends at a chunk boundary
    if (h < sizeof head)
      fail(fmt::format("{}: truncated chunk header ({} of {} bytes), at byte {}", path, h,
                       sizeof head, offset));
    const std::uint32_t length = codec::get_u32(head);
    const std::uint32_t crc = codec::get_u32(head + 4);
    if (length == 0 || length > codec::kMaxChunkBytes)
      fail(fmt::format("{}: impossible chunk length {}, at byte {}", path, length, offset));
    // Grow with what is really there, so that a corrupt length does not
    // allocate more than the file holds.
    chunk.clear();
    std::size_t have = 0;
    while (have < length) {
      const std::size_t step = std::min<std::size_t>(length - have, 1 << 20);
      chunk.resize(have + step);
      const std::size_t n = std::fread(chunk.data() + have, 1, step, f);
      have += n;
      if (n < step) break;
    }
    if (have < length)
      fail(fmt::format("{}: truncated chunk ({} of {} bytes), at byte {}", path, have, length,
                       offset));
    if (static_cast<std::uint32_t>(crc32(0L, chunk.data(), length)) != crc)
      fail(fmt::format("{}: chunk checksum mismatch (corrupt file), at byte {}", path, offset));
    decode_chunk(chunk.data(), length, offset + sizeof head, validator, t);
    offset += sizeof head + length;
  }
  if (std::ferror(f)) fail(fmt::format("{}: read error, at byte {}", path, offset));
  return t;
}

std::vector<RankTrace> read_traces(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  struct Found {
    std::string path;
    long named_rank = -1;  // from a directory listing: the rank in the name
    std::string dir;
  };
  std::vector<Found> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.push_back({p, -1, ""});
      continue;
    }
    std::vector<Found> here;
    for (const auto& entry : fs::directory_iterator(p, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("rank-") || !name.ends_with(".mqt")) continue;
      const long rank = rank_of_name(name);
      if (rank < 0) fail(fmt::format("{}: not named rank-<R>.mqt", entry.path().string()));
      here.push_back({entry.path().string(), rank, p});
    }
    if (ec) fail(fmt::format("{}: cannot list: {}", p, ec.message()));
    if (here.empty()) fail(fmt::format("{}: no rank-*.mqt files", p));
    std::sort(here.begin(), here.end(),
              [](const Found& a, const Found& b) { return a.named_rank < b.named_rank; });
    files.insert(files.end(), here.begin(), here.end());
  }
  if (files.empty()) fail("no trace files given");

  std::vector<RankTrace> traces;
  for (const Found& f : files) {
    traces.push_back(read_trace(f.path));
    const RankTrace& t = traces.back();
    if (f.named_rank >= 0 && f.named_rank != t.rank)
      fail(fmt::format("{}: holds rank {}, not the rank its name says", f.path, t.rank));
  }
  const RankTrace& first = traces.front();
  std::vector<const RankTrace*> by_rank(static_cast<std::size_t>(first.world_size), nullptr);
  for (const RankTrace& t : traces) {
    if (t.world_size != first.world_size)
      fail(fmt::format("{}: a run of {} ranks, but {} is of a run of {} ranks", t.path,
                       t.world_size, first.path, first.world_size));
    if (t.run_id != first.run_id)
      fail(fmt::format("{}: from another run than {} (run id {:016x}, not {:016x})", t.path,
                       first.path, t.run_id, first.run_id));
    const RankTrace*& slot = by_rank[static_cast<std::size_t>(t.rank)];
    if (slot) fail(fmt::format("{} and {} both hold rank {}", slot->path, t.path, t.rank));
    slot = &t;
  }
  for (std::size_t r = 0; r < by_rank.size(); ++r)
    if (!by_rank[r]) {
      const bool one_dir = std::all_of(files.begin(), files.end(), [&](const Found& f) {
        return !f.dir.empty() && f.dir == files.front().dir;
      });
      if (one_dir)
        fail(fmt::format("{}: missing (the run had {} ranks)",
                         (fs::path(files.front().dir) / fmt::format("rank-{}.mqt", r)).string(),
                         first.world_size));
      fail(fmt::format("no trace of rank {} among the files given (the run had {} ranks)", r,
                       first.world_size));
    }
  std::sort(traces.begin(), traces.end(),
            [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  return traces;
}

void dump_trace(const RankTrace& t, std::FILE* out) {
  std::string text = fmt::format(
      "# graphcomm matching trace, version {}: rank {} of {}, run {:016x}, {} records{}\n",
      kTraceVersion, t.rank, t.world_size, t.run_id, t.records.size(),
      t.complete ? "" : " (no end record: the program did not reach MPI_Finalize)");
  std::uint64_t receives = 0;
  for (const Record& r : t.records) {
    switch (r.kind) {
      case Record::Kind::comm:
        text += fmt::format("comm {} size {} world ranks {}\n", r.comm, r.world_ranks.size(),
                            fmt::join(r.world_ranks, " "));
        break;
      case Record::Kind::send:
        text += fmt::format("{:.9f} send comm {} dest {} tag {}\n", r.time, r.comm, r.peer, r.tag);
        break;
      case Record::Kind::post:
        text += fmt::format("{:.9f} post receive {} comm {} source {} tag {}\n", r.time, receives++,
                            r.comm, any_text(r.peer), any_text(r.tag));
        break;
      case Record::Kind::complete:
        text += fmt::format("{:.9f} complete receive {} source {} tag {}\n", r.time, r.index,
                            r.peer, r.tag);
        break;
      case Record::Kind::probe:
        text += fmt::format("{:.9f} probe comm {} source {} tag {} found {}\n", r.time, r.comm,
                            any_text(r.peer), any_text(r.tag),
                            r.found_peer == kNotFound
                                ? std::string("none")
                                : fmt::format("source {} tag {}", r.found_peer, r.found_tag));
        break;
      case Record::Kind::cancel:
        text += fmt::format("{:.9f} cancel receive {}\n", r.time, r.index);
        break;
      case Record::Kind::end:
        text += fmt::format("{:.9f} end\n", r.time);
        break;
    }
    if (text.size() > (1 << 16)) {
      std::fputs(text.c_str(), out);
      text.clear();
    }
  }
  std::fputs(text.c_str(), out);
}

}  // namespace gc::mq
