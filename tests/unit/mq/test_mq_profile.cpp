// mq/engines/profile.hpp, where the partner engines' partners come from
// (Ghazimirsaeed, Mirsadeghi and Afsahi, "Communication-aware message
// matching in MPI", CCPE 2018): the edge point of each metric and the
// partners it chooses; the profile file, its round trip and one error line
// naming the file and the line for each malformed input; and what its counts
// mean (report.hpp's queue_elements).
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/engines/engine.hpp"
#include "mq/engines/profile.hpp"
#include "mq/engines/replay.hpp"
#include "mq/report.hpp"
#include "unit/mq/mq_events.hpp"

namespace gc::mq {
namespace {

using test::arrive;
using test::post;
using test::probe;

// Edge points and partner choice. A count equal to the edge point is not a
// partner (the paper's "exceeds"); sources with no elements are ignored.

std::vector<std::uint32_t> partners(const std::vector<std::uint64_t>& counts,
                                    const std::string& metric, double alpha = 1.5) {
  return choose_partners(counts, metric, alpha);
}
using Sources = std::vector<std::uint32_t>;

TEST(ChoosePartners, Average) {
  EXPECT_EQ(partners({0, 2, 4, 6}, "average"), (Sources{3}));   // 4 = the average: no partner
  EXPECT_EQ(partners({1, 2, 3, 10}, "average"), (Sources{3}));  // average 4
  EXPECT_EQ(partners({0, 0, 0, 0, 0, 0, 1, 2}, "average"), (Sources{7}));  // zeros ignored
  EXPECT_EQ(partners({3, 4}, "average"), (Sources{1}));
  EXPECT_DOUBLE_EQ(edge_point({0, 2, 4, 6}, "average", 0), 4.0);
}

TEST(ChoosePartners, Median) {
  EXPECT_EQ(partners({1, 2, 3, 4, 10}, "median"), (Sources{3, 4}));  // median 3
  EXPECT_EQ(partners({1, 3, 3, 5}, "median"), (Sources{3}));         // median 3: the 3s are not
  EXPECT_EQ(partners({4, 1, 3, 2}, "median"), (Sources{0, 2}));      // median 2.5
  EXPECT_EQ(partners({0, 7, 0, 1, 0}, "median"), (Sources{1}));      // median of {1, 7} is 4
  EXPECT_DOUBLE_EQ(edge_point({4, 1, 3, 2}, "median", 0), 2.5);
}

TEST(ChoosePartners, Fence) {
  // Quartiles interpolate linearly: {1..5} has Q1 = 2, Q3 = 4.
  EXPECT_DOUBLE_EQ(edge_point({1, 2, 3, 4, 5}, "fence", 1.5), 7.0);
  EXPECT_EQ(partners({1, 2, 3, 4, 5}, "fence", 1.5), Sources{});
  EXPECT_EQ(partners({1, 2, 3, 4, 5}, "fence", 0.0), (Sources{4}));  // fence = Q3 = 4
  // {1, 2, 3, 4, 5, 100}: Q1 = 2.25, Q3 = 4.75, fence 8.5.
  EXPECT_DOUBLE_EQ(edge_point({1, 2, 3, 4, 5, 100}, "fence", 1.5), 8.5);
  EXPECT_EQ(partners({1, 2, 3, 4, 5, 100}, "fence", 1.5), (Sources{5}));
  // {2, 4, 6, 8, 10}: Q1 = 4, Q3 = 8; alpha 0.5 puts the fence on 10 exactly.
  EXPECT_EQ(partners({2, 4, 6, 8, 10}, "fence", 0.5), Sources{});
  EXPECT_EQ(partners({2, 4, 6, 8, 10}, "fence", 0.49), (Sources{4}));
}

TEST(ChoosePartners, EqualEmptyAndUnknown) {
  for (const std::string metric : {"average", "median", "fence"}) {
    SCOPED_TRACE(metric);
    EXPECT_EQ(partners({5, 5, 5, 5}, metric), Sources{});
    EXPECT_EQ(partners({0, 5, 0, 5, 5}, metric), Sources{});
    EXPECT_EQ(partners({9}, metric), Sources{});  // a lone source equals its own edge point
    EXPECT_EQ(partners({}, metric), Sources{});
    EXPECT_EQ(partners({0, 0, 0}, metric), Sources{});
    EXPECT_EQ(edge_point({}, metric, 1.5), 0.0);
  }
  EXPECT_THROW(partners({1, 2}, "mean"), Error);
}

// ---------------------------------------------------------------------------
// Profile files

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            fmt::format("graphcomm-test-mq-profile-{}", static_cast<long>(getpid()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(path_),
                                                  std::filesystem::directory_iterator()));
  }

 private:
  std::filesystem::path path_;
};

// What a profile file can say: no trailing zero counts, no trailing empty communicators.
Profile normalized(Profile p) {
  for (auto& counts : p)
    while (!counts.empty() && counts.back() == 0) counts.pop_back();
  while (!p.empty() && p.back().empty()) p.pop_back();
  return p;
}

TEST(ProfileFile, RoundTrip) {
  const TempDir dir;
  const Profile profile{{0, 5, 0, 12, 1}, {}, {7}, {0, 0, 3, 0, 0}, {}};
  const std::string path = dir.file("p.txt");
  write_profile(path, profile);
  EXPECT_EQ(dir.entries(), 1u);  // no temporary left behind
  EXPECT_EQ(read_profile(path), normalized(profile));
  // Rewriting replaces the file.
  write_profile(path, {{1, 2}});
  EXPECT_EQ(read_profile(path), (Profile{{1, 2}}));
  write_profile(path, {});
  EXPECT_EQ(read_profile(path), Profile{});
  // Comments, blank lines, tabs and CRLF are fine.
  const auto tolerant =
      dir.write("t.txt", "graphcomm-mq-profile 1\r\n# comment\n\n  1\t3  4\r\n 0 0 2\n");
  EXPECT_EQ(read_profile(tolerant), (Profile{{2}, {0, 0, 0, 4}}));
}

TEST(ProfileFile, MalformedInputsNameFileAndLine) {
  const TempDir dir;
  struct Case {
    std::string text;
    std::string where;  // "file:line"
    std::string says;
  };
  const std::vector<Case> cases{
      {"", "1", "empty file"},
      {"graphcomm-mq-trace 1\n0 0 1\n", "1", "not a matching profile"},
      {"graphcomm-mq-profile 2\n", "1", "unsupported profile version '2'"},
      {"graphcomm-mq-profile\n", "1", "not a matching profile"},
      {"graphcomm-mq-profile 1\n0 1 5\n0 2\n", "3", "expected 'comm source count'"},
      {"graphcomm-mq-profile 1\n0 1 5 6\n", "2", "expected 'comm source count'"},
      {"graphcomm-mq-profile 1\n0 x 5\n", "2", "source 'x' is not a non-negative integer"},
      {"graphcomm-mq-profile 1\n0 -1 5\n", "2", "source '-1' is not a non-negative integer"},
      {"graphcomm-mq-profile 1\n0 1 5x\n", "2", "count '5x' is not a non-negative integer"},
      {"graphcomm-mq-profile 1\n0 16777216 5\n", "2", "source 16777216 out of range"},
      {"graphcomm-mq-profile 1\n65536 0 5\n", "2", "communicator 65536 out of range"},
      {"graphcomm-mq-profile 1\n0 1 99999999999999999999\n", "2", "out of range"},
      {"graphcomm-mq-profile 1\n0 1 0\n", "2", "count must be positive"},
      {"graphcomm-mq-profile 1\n0 1 5\n\n1 1 5\n0 1 6\n", "5",
       "communicator 0, source 1 given twice"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string path = dir.write(fmt::format("bad{}.txt", i), c.text);
    SCOPED_TRACE(c.text);
    std::string error;
    try {
      read_profile(path);
    } catch (const Error& e) {
      error = e.what();
    }
    EXPECT_EQ(error.rfind(path + ":" + c.where + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(c.says), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  EXPECT_THROW(read_profile(dir.file("missing.txt")), Error);
  EXPECT_THROW(write_profile(dir.file("no/such/dir/p.txt"), {{1}}), Error);
}

// ---------------------------------------------------------------------------
// The profile's counts (report.hpp's queue_elements, what `mq profile` writes
// and `mq replay` gives partner-static): elements each source adds to the PRQ
// or the UMQ, as the group's clustering-based matching defines its profile.

TEST(ProfileCounts, ElementsEachSourceAddsToTheQueues) {
  const std::vector<Communicator> comms{{0, 4}, {1, 4}};
  const std::vector<Event> events{
      arrive(1, 0),         // m0 from 1 waits in the UMQ: 1
      arrive(1, 0),         // m1 from 1 waits: 1 again
      probe(1, 0),          // probes add nothing
      post(1, 0),           // takes m0: found, adds nothing
      post(2, 5),           // r1 for 2 waits in the PRQ: 2
      post(kAnySource, 7),  // r2 with MPI_ANY_SOURCE waits: no source
      arrive(2, 5),         // meets r1: adds nothing
      arrive(3, 7),         // meets r2: adds nothing
      arrive(3, 0, 1),      // communicator 1: m4 from 3 waits
      post(1, 0),           // takes m1, however long it waited
  };
  auto engine = make_engine("linked-list");
  const ReplayResult r = replay(events, comms, *engine);
  const Profile counts = queue_elements(events, comms, event_outcomes(events, r));
  EXPECT_EQ(counts, (Profile{{0, 2, 1, 0}, {0, 0, 0, 1}}));
  // The same counts however long the elements wait (not weighted by time in
  // the queue): m0 now waits one event, not three.
  std::vector<Event> sooner = events;
  std::swap(sooner[1], sooner[3]);
  auto again = make_engine("linked-list");
  const ReplayResult s = replay(sooner, comms, *again);
  EXPECT_EQ(queue_elements(sooner, comms, event_outcomes(sooner, s)), counts);
}
}  // namespace
}  // namespace gc::mq
