// Edge points and partner choice (Ghazimirsaeed et al., CCPE 2018) and the
// profile file of partner-static; see profile.hpp for the choices made.
#include "mq/engines/profile.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <numeric>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/output.hpp"

namespace gc::mq {

namespace {

// The q-quantile of sorted values, interpolating linearly between order
// statistics (position q (n - 1)).
double quantile(const std::vector<std::uint64_t>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const double fraction = position - static_cast<double>(below);
  const double low = static_cast<double>(sorted[below]);
  if (below + 1 >= sorted.size()) return low;
  return low + fraction * (static_cast<double>(sorted[below + 1]) - low);
}

constexpr std::string_view kHeader = "graphcomm-mq-profile";

}  // namespace

void check_metric(std::string_view metric) {
  if (metric != "average" && metric != "median" && metric != "fence")
    fail(fmt::format("unknown partner metric '{}' (one of: average, median, fence)", metric));
}

double edge_point(std::vector<std::uint64_t> counts, std::string_view metric, double alpha) {
  std::erase(counts, 0);
  return edge_point_in_place(counts, metric, alpha);
}

double edge_point_in_place(std::vector<std::uint64_t>& counts, std::string_view metric,
                           double alpha) {
  check_metric(metric);
  if (counts.empty()) return 0;
  if (metric == "average") {
    const auto sum = std::accumulate(counts.begin(), counts.end(), 0.0L);
    return static_cast<double>(sum / static_cast<long double>(counts.size()));
  }
  std::sort(counts.begin(), counts.end());
  if (metric == "median") return quantile(counts, 0.5);
  const double q1 = quantile(counts, 0.25), q3 = quantile(counts, 0.75);
  return q3 + alpha * (q3 - q1);
}

std::vector<std::uint32_t> choose_partners(const std::vector<std::uint64_t>& counts_per_source,
                                           const std::string& metric, double alpha) {
  const double edge = edge_point(counts_per_source, metric, alpha);
  std::vector<std::uint32_t> partners;
  for (std::size_t s = 0; s < counts_per_source.size(); ++s)
    if (counts_per_source[s] > 0 && static_cast<double>(counts_per_source[s]) > edge)
      partners.push_back(static_cast<std::uint32_t>(s));
  return partners;
}

void keep_fullest(std::vector<std::uint32_t>& partners,
                  const std::vector<std::uint64_t>& counts_per_source, std::uint32_t cap) {
  if (partners.size() <= cap) return;
  std::stable_sort(partners.begin(), partners.end(), [&](std::uint32_t a, std::uint32_t b) {
    return counts_per_source[a] > counts_per_source[b];
  });
  partners.resize(cap);
  std::sort(partners.begin(), partners.end());
}

void write_profile(const std::string& path, const Profile& profile) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << kHeader << ' ' << kProfileVersion << "\n# comm source count\n";
    for (std::size_t comm = 0; comm < profile.size(); ++comm)
      for (std::size_t source = 0; source < profile[comm].size(); ++source)
        if (profile[comm][source] > 0)
          out << comm << ' ' << source << ' ' << profile[comm][source] << '\n';
  });
}

namespace {

// The whitespace-separated fields of a line.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

}  // namespace

Profile read_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  auto error = [&](std::uint64_t line, const std::string& what) {
    fail(fmt::format("{}:{}: {}", path, line, what));
  };
  auto number = [&](std::uint64_t line, std::string_view field, std::uint64_t bound,
                    const char* name) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec == std::errc::result_out_of_range || (ec == std::errc{} && value >= bound))
      error(line, fmt::format("{} {} out of range (must be below {})", name, field, bound));
    if (ec != std::errc{} || end != field.data() + field.size())
      error(line, fmt::format("{} '{}' is not a non-negative integer", name, field));
    return value;
  };

  std::string text;
  std::uint64_t line = 1;
  if (!std::getline(in, text))
    error(line, fmt::format("empty file, expected the header '{} {}'", kHeader, kProfileVersion));
  const auto header = fields_of(text);
  if (header.size() != 2 || header[0] != kHeader)
    error(line, fmt::format("not a matching profile (expected the header '{} {}')", kHeader,
                            kProfileVersion));
  if (header[1] != std::to_string(kProfileVersion))
    error(line, fmt::format("unsupported profile version '{}' (this build reads {})", header[1],
                            kProfileVersion));

  Profile profile;
  while (std::getline(in, text)) {
    ++line;
    const auto fields = fields_of(text);
    if (fields.empty() || fields[0].front() == '#') continue;
    if (fields.size() != 3)
      error(line, fmt::format("expected 'comm source count', got '{}'", text));
    const auto comm = number(line, fields[0], kProfileMaxComm, "communicator");
    const auto source = number(line, fields[1], kProfileMaxRank, "source");
    const auto count = number(line, fields[2], ~std::uint64_t{0}, "count");
    if (count == 0) error(line, "count must be positive");
    if (profile.size() <= comm) profile.resize(comm + 1);
    auto& counts = profile[comm];
    if (counts.size() <= source) counts.resize(source + 1, 0);
    if (counts[source] != 0)
      error(line, fmt::format("communicator {}, source {} given twice", comm, source));
    counts[source] = count;
  }
  if (in.bad()) fail(fmt::format("{}: read failed", path));
  return profile;
}

}  // namespace gc::mq
