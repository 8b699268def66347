#include "graph/read_text.hpp"

#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/rng.hpp"
#include "graph/text_input.hpp"

namespace gc {

namespace {

// Splits a line on blanks and tabs into at most N fields; returns the count.
template <size_t N>
size_t split_fields(std::string_view line, std::string_view (&fields)[N]) {
  size_t count = 0, i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (count == N) return N + 1;  // too many
    fields[count++] = line.substr(i, j - i);
    i = j;
  }
  return count;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

std::optional<std::uint64_t> parse_id(std::string_view s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_number(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return HUGE_VAL;
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Matrix Market banner and size line, parsed on rank 0 and broadcast.
struct MatrixMarketHeader {
  bool pattern = false;
  bool symmetric = false;
  std::uint64_t rows = 0, cols = 0, entries = 0;
};

struct LineError {
  std::uint64_t line;
  std::string what;
};

class Parser {
 public:
  Parser(const std::string& path, TextFormat format, WeightSource weights, std::uint64_t seed)
      : path_(path), format_(format), weights_(weights), seed_(seed) {}

  HeaderExtent parse_header(std::string_view start);
  void parse_body(const TextChunk& chunk, TextGraph& out);
  const std::optional<LineError>& error() const { return error_; }
  const MatrixMarketHeader& mm() const { return mm_; }
  MatrixMarketHeader& mm() { return mm_; }
  std::uint64_t max_id_seen() const { return max_id_; }

 private:
  void record(std::uint64_t line, std::string what) {
    if (!error_) error_ = LineError{line, std::move(what)};
  }
  [[noreturn]] void header_error(std::uint64_t line, const std::string& what) const {
    fail(fmt::format("{}:{}: {}", path_, line, what));
  }
  void parse_line(std::string_view line, std::uint64_t number, TextGraph& out);

  std::string path_;
  TextFormat format_;
  WeightSource weights_;
  std::uint64_t seed_;
  MatrixMarketHeader mm_;
  std::optional<LineError> error_;
  std::uint64_t max_id_ = 0;
  bool any_id_ = false;
};

HeaderExtent Parser::parse_header(std::string_view start) {
  HeaderExtent extent;
  if (format_ != TextFormat::matrix_market)
    return extent;  // edge lists: comments are skipped in the body
  std::uint64_t line_no = 0;
  size_t pos = 0;
  auto next_line = [&](std::string_view& line) {
    if (pos >= start.size()) return false;
    size_t end = start.find('\n', pos);
    if (end == std::string_view::npos) {
      if (start.size() >= (1u << 20))
        header_error(line_no + 1, "Matrix Market header longer than 1 MiB");
      end = start.size();
    }
    line = start.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;
    ++line_no;
    return true;
  };
  std::string_view line;
  if (!next_line(line))
    fail(fmt::format("{}:1: empty file (expected a %%MatrixMarket banner)", path_));
  std::string_view f[6];
  size_t n = split_fields(line, f);
  if (n < 1 || lower(f[0]) != "%%matrixmarket")
    header_error(1, "not a Matrix Market file (the first line must be the %%MatrixMarket banner)");
  if (n != 5)
    header_error(
        1, "malformed banner (expected: %%MatrixMarket matrix coordinate <field> <symmetry>)");
  if (lower(f[1]) != "matrix")
    header_error(1, fmt::format("unsupported object '{}' (only 'matrix')", f[1]));
  if (lower(f[2]) != "coordinate")
    header_error(
        1, fmt::format("unsupported format '{}' (only 'coordinate'; 'array' is a dense matrix)",
                       f[2]));
  const std::string field = lower(f[3]), symmetry = lower(f[4]);
  if (field == "pattern")
    mm_.pattern = true;
  else if (field != "real" && field != "integer" && field != "double")
    header_error(1, fmt::format("unsupported field '{}' (real, integer or pattern)", f[3]));
  if (symmetry == "symmetric")
    mm_.symmetric = true;
  else if (symmetry != "general")
    header_error(1, fmt::format("unsupported symmetry '{}' (general or symmetric)", f[4]));

  while (true) {
    if (!next_line(line)) header_error(line_no + 1, "missing size line (rows cols entries)");
    if (!line.empty() && line[0] == '%') continue;
    if (is_blank(line)) continue;
    break;
  }
  std::string_view s[4];
  n = split_fields(line, s);
  if (n != 3) header_error(line_no, "malformed size line (expected: rows cols entries)");
  auto rows = parse_id(s[0]), cols = parse_id(s[1]), entries = parse_id(s[2]);
  if (!rows || !cols || !entries)
    header_error(line_no, "malformed size line (expected three non-negative integers)");
  if (*rows != *cols)
    header_error(
        line_no,
        fmt::format("matrix is not square ({} x {}); a graph needs rows = columns", *rows, *cols));
  mm_.rows = *rows;
  mm_.cols = *cols;
  mm_.entries = *entries;
  extent.bytes = std::min<std::uint64_t>(pos, start.size());
  extent.lines = line_no;
  return extent;
}

void Parser::parse_line(std::string_view line, std::uint64_t number, TextGraph& out) {
  if (line.empty() || is_blank(line)) return;
  const char c0 = line[line.find_first_not_of(" \t")];
  if (c0 == '%' || c0 == '#') return;
  if (error_) return;  // keep the first error, skip the rest quickly

  std::string_view f[4];
  const size_t n = split_fields(line, f);
  const bool one_based = format_ != TextFormat::edge_list;
  size_t want_min = 2, want_max = 3;
  bool need_weight = false;
  if (format_ == TextFormat::matrix_market) {
    want_min = want_max = mm_.pattern ? 2 : 3;
    need_weight = !mm_.pattern && weights_ != WeightSource::seed;
  } else if (format_ == TextFormat::graph_challenge_tsv) {
    want_min = 3;
    need_weight = weights_ != WeightSource::seed;
  } else {
    need_weight = weights_ == WeightSource::column;
    want_min = need_weight ? 3 : 2;
    want_max = 3;
  }
  if (n < want_min || n > want_max) {
    if (format_ == TextFormat::matrix_market)
      return record(number, fmt::format("expected {} fields, found {}", want_min,
                                        n > 3 ? "more" : std::to_string(n)));
    return record(number,
                  fmt::format("expected {} fields, found {}",
                              want_min == want_max ? std::to_string(want_min)
                                                   : fmt::format("{} to {}", want_min, want_max),
                              n > 3 ? "more" : std::to_string(n)));
  }
  auto a = parse_id(f[0]), b = parse_id(f[1]);
  if (!a || !b) {
    std::string_view bad = !a ? f[0] : f[1];
    return record(number, fmt::format("malformed vertex id '{}'", bad));
  }
  vid_t u = *a, v = *b;
  if (one_based) {
    if (u == 0 || v == 0) return record(number, "vertex id 0 out of range (ids are 1-based)");
    --u;
    --v;
  }
  if (format_ == TextFormat::matrix_market && (u >= mm_.rows || v >= mm_.rows))
    return record(number,
                  fmt::format("vertex id {} out of range 1..{}", std::max(u, v) + 1, mm_.rows));
  if (format_ != TextFormat::matrix_market && std::max(u, v) >= (1ULL << 62))
    return record(number, fmt::format("vertex id {} out of range", std::max(*a, *b)));

  double w = 0;
  if (need_weight) {
    auto parsed = parse_number(f[2]);
    if (!parsed) return record(number, fmt::format("malformed weight '{}'", f[2]));
    w = *parsed;
    if (std::isnan(w)) return record(number, "weight is NaN");
    if (!std::isfinite(w)) return record(number, fmt::format("weight '{}' is not finite", f[2]));
    if (w < 0) return record(number, fmt::format("negative weight {}", f[2]));
    out.weights_from_file = true;
  } else {
    w = edge_weight_from_seed(seed_, u, v);
  }
  ++out.entries;
  max_id_ = std::max(max_id_, std::max(u, v));
  any_id_ = true;
  out.edges.push_back(Edge{u, v, w});
}

void Parser::parse_body(const TextChunk& chunk, TextGraph& out) {
  for_each_line(
      chunk, [&](std::string_view line, std::uint64_t number) { parse_line(line, number, out); });
}

}  // namespace

TextGraph read_text_graph(const Comm& comm, const std::string& path, TextFormat format,
                          WeightSource weights, std::uint64_t seed) {
  Parser parser(path, format, weights, seed);
  TextChunk chunk = read_text_chunk(
      comm, path, [&](std::string_view start) { return parser.parse_header(start); });

  // Rank 0 parsed the Matrix Market header: share it.
  MatrixMarketHeader& mm = parser.mm();
  std::uint64_t hdr[5] = {mm.pattern, mm.symmetric, mm.rows, mm.cols, mm.entries};
  MPI_Bcast(hdr, 5, MPI_UINT64_T, 0, comm.get());
  mm = {hdr[0] != 0, hdr[1] != 0, hdr[2], hdr[3], hdr[4]};
  if (format == TextFormat::matrix_market && mm.pattern && weights == WeightSource::column) {
    fail_everywhere(fmt::format("{}: a pattern Matrix Market file has no weights to take", path));
  }

  TextGraph out;
  out.id_base = format == TextFormat::edge_list ? 0 : 1;
  parser.parse_body(chunk, out);
  chunk = {};
  std::optional<Error> local;
  if (parser.error())
    local = Error(fmt::format("{}:{}: {}", path, parser.error()->line, parser.error()->what));
  raise_if_any_rank(comm.get(), local);

  out.entries = sum_over_ranks<std::uint64_t>(comm, out.entries);
  out.weights_from_file = max_over_ranks<int>(comm, out.weights_from_file ? 1 : 0) != 0;
  if (format == TextFormat::matrix_market) {
    if (out.entries != mm.entries) {
      fail_everywhere(fmt::format("{}: the size line promises {} entries, the file has {}", path,
                                  mm.entries, out.entries));
    }
    out.vertices = mm.rows;
  } else {
    // Edge lists: the vertex count is one more than the largest id seen.
    const std::uint64_t any = max_over_ranks<std::uint64_t>(comm, out.entries ? 1 : 0);
    out.vertices = any ? max_over_ranks<std::uint64_t>(comm, parser.max_id_seen()) + 1 : 0;
  }
  if (out.vertices == 0) {
    fail_everywhere(fmt::format("{}: empty graph (no vertices)", path));
  }
  return out;
}

}  // namespace gc
