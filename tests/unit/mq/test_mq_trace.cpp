// mq/ trace files: the format round trip, the reader's checks, a run's
// files together, and the dump. (The reader under attack, truncated, flipped
// and mutated files: test_mq_trace_fuzz.cpp; what reconstruct() makes of the
// records: test_mq_reconstruct.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>

#include <zlib.h>

#include "core/error.hpp"
#include "mq/trace/trace.hpp"
#include "unit/mq/trace_records.hpp"

namespace gc::mq {
namespace {

namespace fs = std::filesystem;

using test::records::cancel;
using test::records::comm;
using test::records::complete;
using test::records::end;
using test::records::post;
using test::records::probe;
using test::records::run_of;
using test::records::send;

class TraceFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("graphcomm_trace." + std::to_string(getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const RankTrace& t, const std::string& name, std::size_t chunk = 4096,
                    bool close = true) {
    const std::string path = (dir_ / name).string();
    TraceWriter w(path, t.rank, t.world_size, t.run_id, chunk);
    for (const Record& r : t.records) w.add(r);
    if (close) w.close();
    return path;
  }

  fs::path dir_;
};

TEST_F(TraceFiles, EveryRecordKindRoundTrips) {
  std::vector<std::int32_t> big;  // a communicator record larger than a chunk
  for (int r = 0; r < 300; ++r) big.push_back(299 - r);
  RankTrace t = run_of({{}, {}, {}})[1];
  t.world_size = 300;
  t.run_id = 0xfeedbeef12345678ull;
  t.records = {comm(0, big),
               comm(7, {1, 200}),
               send(199, 5, 0.5),
               send(1, 0, 0.75, 7),
               post(kAnySource, kAnyTag, 1.0),
               post(0, 3, 1.25, 7),
               complete(0, 42, 9, 1.5),
               probe(kAnySource, 3, 0, 3, 1.75, 7),
               probe(5, kAnyTag, kNotFound, kNotFound, 2.0),
               cancel(1, 2.25),
               end(3.0)};
  for (int i = 0; i < 200; ++i) t.records.insert(t.records.end() - 1, send(i, i, 2.5 + i));
  const RankTrace back = read_trace(write(t, "rank-1.mqt", 256));
  EXPECT_EQ(back.rank, 1);
  EXPECT_EQ(back.world_size, 300);
  EXPECT_EQ(back.run_id, t.run_id);
  EXPECT_TRUE(back.complete);
  ASSERT_EQ(back.records.size(), t.records.size());
  for (std::size_t i = 0; i < t.records.size(); ++i) {
    const Record& a = t.records[i];
    const Record& b = back.records[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.time, b.time);
    EXPECT_EQ(a.world_ranks, b.world_ranks);
    switch (a.kind) {
      case Record::Kind::comm:
        EXPECT_EQ(a.comm, b.comm);
        EXPECT_EQ(b.peer, static_cast<std::int32_t>(a.world_ranks.size()));
        break;
      case Record::Kind::probe:
        EXPECT_EQ(a.found_peer, b.found_peer);
        EXPECT_EQ(a.found_tag, b.found_tag);
        [[fallthrough]];
      case Record::Kind::send:
      case Record::Kind::post:
        EXPECT_EQ(a.comm, b.comm);
        EXPECT_EQ(a.peer, b.peer);
        EXPECT_EQ(a.tag, b.tag);
        break;
      case Record::Kind::complete:
        EXPECT_EQ(a.peer, b.peer);
        EXPECT_EQ(a.tag, b.tag);
        [[fallthrough]];
      case Record::Kind::cancel:
        EXPECT_EQ(a.index, b.index);
        break;
      case Record::Kind::end:
        break;
    }
  }
}

TEST_F(TraceFiles, WithoutEndRecordIsIncompleteAndEmptyIsValid) {
  RankTrace t = run_of({{post(kAnySource, 0, 1)}, {}}, false)[0];
  const RankTrace back = read_trace(write(t, "a.mqt"));
  EXPECT_FALSE(back.complete);
  EXPECT_EQ(back.records.size(), 3u);
  t.records.clear();
  const RankTrace empty = read_trace(write(t, "b.mqt"));
  EXPECT_TRUE(empty.records.empty());
  EXPECT_FALSE(empty.complete);
}

TEST_F(TraceFiles, FlushedRecordsAreReadableBeforeClose) {
  const RankTrace t = run_of({{}, {send(0, 1, 0.5), send(0, 2, 0.6)}}, false)[1];
  const std::string path = (dir_ / "open.mqt").string();
  TraceWriter w(path, 1, 2);
  for (const Record& r : t.records) w.add(r);
  EXPECT_TRUE(read_trace(path).records.empty());  // buffered: a file of just the header
  w.flush();
  EXPECT_EQ(read_trace(path).records.size(), 4u);
  w.add(send(0, 3, 0.7));
  EXPECT_EQ(read_trace(path).records.size(), 4u);
}

// Each impossible record is one error line naming the file and the byte.
TEST_F(TraceFiles, ImpossibleValuesAreErrors) {
  const std::vector<std::pair<std::vector<Record>, std::string>> cases = {
      {{send(2, 0, 1)}, "send to rank 2 of communicator 0 of 2 ranks"},
      {{send(1, -5, 1)}, "send with tag -5"},
      {{post(0, 0, 1, 9)}, "communicator 9 used before its record"},
      {{complete(0, 1, 0, 1)}, "completion of receive 0, but 0 were posted"},
      {{post(1, 3, 1), complete(0, 1, 4, 2)}, "completed with source 1 tag 4"},
      {{post(1, 3, 1), complete(0, 1, 3, 2), cancel(0, 3)}, "which had already completed"},
      {{probe(1, 3, 0, 3, 1)}, "probe for source 1 tag 3 found source 0 tag 3"},
      {{comm(1, {0})}, "communicator 1 defined twice"},
      {{comm(5, {1})}, "communicator 5 without this rank"},
      {{comm(5, {0, 0})}, "lists world rank 0 twice"},
      {{comm(5, {0, 7})}, "world rank 7 of 2"},
      {{comm(1u << 20, {0})}, "communicator id 1048576"},
      {{end(1), send(1, 0, 2)}, "a record after the end record"},
      {{send(1, 0, std::numeric_limits<double>::quiet_NaN())}, "impossible time"},
  };
  for (const auto& [records, what] : cases) {
    RankTrace t = run_of({records, {}}, false)[0];
    const std::string path = write(t, "bad.mqt");
    try {
      read_trace(path);
      ADD_FAILURE() << "no error for: " << what;
    } catch (const Error& e) {
      const std::string got = e.what();
      EXPECT_NE(got.find(what), std::string::npos) << got;
      EXPECT_EQ(got.rfind(path + ": ", 0), 0u) << got;
      EXPECT_NE(got.find(", at byte "), std::string::npos) << got;
    }
  }
}

TEST_F(TraceFiles, ImpossibleSizesAndHeadersAreErrors) {
  // Hand-made bytes behind a valid checksum: a comm record of -1 members.
  const std::string path = (dir_ / "x.mqt").string();
  {
    TraceWriter w(path, 0, 2);
    w.close();
  }
  unsigned char chunk[] = {9, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  const auto crc = static_cast<std::uint32_t>(crc32(0L, chunk + 8, 9));
  for (int i = 0; i < 4; ++i) chunk[4 + i] = static_cast<unsigned char>(crc >> (8 * i));
  std::FILE* f = std::fopen(path.c_str(), "ab");
  std::fwrite(chunk, 1, sizeof chunk, f);
  std::fclose(f);
  auto expect_error = [&](const std::string& what) {
    try {
      read_trace(path);
      ADD_FAILURE() << "no error: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error("communicator 3 of -1 ranks in a world of 2, at byte 36");
  std::FILE* g = std::fopen(path.c_str(), "wb");
  std::fputs("GCMQTRC", g);
  std::fclose(g);
  expect_error("truncated header (7 of 28 bytes), at byte 7");
  g = std::fopen(path.c_str(), "wb");
  std::fputs("#!/bin/sh\n", g);
  std::fclose(g);
  expect_error("not a graphcomm matching trace");
  EXPECT_THROW(TraceWriter(path, 2, 2), Error);
}

TEST_F(TraceFiles, ARunsFilesBelongTogether) {
  auto traces = run_of({{send(1, 0, 1)}, {post(0, 0, 2), complete(0, 0, 0, 3)}, {}});
  for (RankTrace& t : traces) t.run_id = 77;
  for (const RankTrace& t : traces) write(t, "rank-" + std::to_string(t.rank) + ".mqt");
  const auto read = read_traces({dir_.string()});
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[2].rank, 2);
  EXPECT_EQ(reconstruct(read)[1].observed, std::vector<Id>{0});
  // The files given one by one, in any order.
  const auto files = read_traces({(dir_ / "rank-2.mqt").string(), (dir_ / "rank-0.mqt").string(),
                                  (dir_ / "rank-1.mqt").string()});
  EXPECT_EQ(files[0].rank, 0);

  auto expect_error = [&](const std::vector<std::string>& paths, const std::string& what) {
    try {
      read_traces(paths);
      ADD_FAILURE() << "no error: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  fs::rename(dir_ / "rank-1.mqt", dir_ / "keep.mqt");
  expect_error({dir_.string()}, (dir_ / "rank-1.mqt").string() + ": missing (the run had 3 ranks)");
  expect_error({(dir_ / "rank-0.mqt").string(), (dir_ / "rank-2.mqt").string()},
               "no trace of rank 1");
  expect_error({(dir_ / "rank-0.mqt").string(), (dir_ / "rank-0.mqt").string()},
               "both hold rank 0");
  fs::copy_file(dir_ / "keep.mqt", dir_ / "rank-2.mqt", fs::copy_options::overwrite_existing);
  expect_error({dir_.string()}, "holds rank 1, not the rank its name says");
  RankTrace other = traces[1];
  other.run_id = 78;
  write(other, "rank-1.mqt");
  write(traces[2], "rank-2.mqt");
  expect_error({dir_.string()}, "from another run than");
  other.run_id = 77;
  other.world_size = 4;
  other.records = {comm(0, {0, 1, 2, 3})};
  write(other, "rank-1.mqt");
  expect_error({dir_.string()}, "a run of 4 ranks, but");
  expect_error({(dir_ / "nothing").string()}, "cannot open");
  fs::create_directories(dir_ / "empty");
  expect_error({(dir_ / "empty").string()}, "no rank-*.mqt files");
}

TEST_F(TraceFiles, DumpShowsOneRecordALine) {
  const RankTrace t =
      run_of({{send(1, 4, 0.5), post(kAnySource, kAnyTag, 1), complete(0, 1, 2, 1.5),
               probe(1, kAnyTag, kNotFound, kNotFound, 2), cancel(0, 3)},
              {}})[0];
  const std::string path = (dir_ / "dump.txt").string();
  std::FILE* f = std::fopen(path.c_str(), "w");
  dump_trace(t, f);
  std::fclose(f);
  std::string text;
  std::FILE* g = std::fopen(path.c_str(), "r");
  for (int c; (c = std::fgetc(g)) != EOF;) text += static_cast<char>(c);
  std::fclose(g);
  for (const char* line :
       {"rank 0 of 2", "comm 0 size 2 world ranks 0 1\n", "0.500000000 send comm 0 dest 1 tag 4\n",
        "1.000000000 post receive 0 comm 0 source ANY tag ANY\n",
        "1.500000000 complete receive 0 source 1 tag 2\n",
        "2.000000000 probe comm 0 source 1 tag ANY found none\n", "3.000000000 cancel receive 0\n",
        "end\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << " in\n" << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 8);
}

}  // namespace
}  // namespace gc::mq
