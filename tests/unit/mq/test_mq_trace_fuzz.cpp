// mq/ trace files under attack: every truncation of a small file, byte
// flips, records mutated behind a valid checksum, and random garbage give a
// gc::Error with one line naming the file and the byte, never a crash.
// (Also built with AddressSanitizer and UBSan: test_mq_trace_asan.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <zlib.h>

#include "core/error.hpp"
#include "mq/trace/trace.hpp"

namespace gc::mq {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;

class TraceFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("graphcomm_fuzz." + std::to_string(getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "rank-1.mqt").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A valid trace of rank 1 of 3 in small chunks, with every record kind.
  Bytes valid_file() {
    {
      TraceWriter w(path_, 1, 3, 0x1234, 256);
      Record c;
      c.kind = Record::Kind::comm;
      c.world_ranks = {0, 1, 2};
      w.add(c);
      c.comm = 1;
      c.world_ranks = {1};
      w.add(c);
      c.comm = 2;
      c.world_ranks = {2, 1};
      w.add(c);
      for (int i = 0; i < 12; ++i) {
        Record r;
        r.time = i;
        r.kind = Record::Kind::send;
        r.comm = 2;
        r.peer = i % 2;
        r.tag = i;
        w.add(r);
        r.kind = Record::Kind::post;
        r.comm = 0;
        r.peer = i % 3 == 0 ? kAnySource : 2;
        r.tag = i % 4 == 0 ? kAnyTag : 5;
        w.add(r);
        r.kind = Record::Kind::probe;
        r.found_peer = i % 2 ? 2 : kNotFound;
        r.found_tag = i % 2 ? 5 : kNotFound;
        w.add(r);
        r.kind = i % 5 == 4 ? Record::Kind::cancel : Record::Kind::complete;
        r.index = static_cast<std::uint64_t>(i);
        r.peer = 2;
        r.tag = 5;
        w.add(r);
      }
      Record e;
      e.kind = Record::Kind::end;
      e.time = 99;
      w.add(e);
      w.close();
    }
    return read_bytes();
  }

  Bytes read_bytes() const {
    std::ifstream in(path_, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
  }
  void write_bytes(const Bytes& b) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }

  // Reads the file; true if it is valid, false after a proper gc::Error.
  bool read_ok() const {
    try {
      read_trace(path_);
      return true;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.rfind(path_ + ": ", 0), 0u) << what;
      return false;
    }
  }

  // Where the chunks start (and the file ends), from the valid file.
  static std::vector<std::size_t> boundaries(const Bytes& b) {
    std::vector<std::size_t> at = {28};
    for (std::size_t p = 28; p + 8 <= b.size();) {
      const std::size_t n = b[p] | b[p + 1] << 8 | b[p + 2] << 16 | std::size_t{b[p + 3]} << 24;
      p += 8 + n;
      at.push_back(p);
    }
    return at;
  }

  static void fix_crcs(Bytes& b) {
    for (std::size_t p = 28; p + 8 <= b.size();) {
      const std::size_t n = b[p] | b[p + 1] << 8 | b[p + 2] << 16 | std::size_t{b[p + 3]} << 24;
      if (p + 8 + n > b.size()) return;
      const auto crc =
          static_cast<std::uint32_t>(crc32(0L, b.data() + p + 8, static_cast<uInt>(n)));
      for (int i = 0; i < 4; ++i) b[p + 4 + static_cast<std::size_t>(i)] = (crc >> (8 * i)) & 0xff;
      p += 8 + n;
    }
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(TraceFuzz, EveryTruncationIsAnErrorUnlessAtAChunkBoundary) {
  const Bytes full = valid_file();
  const std::vector<std::size_t> ends = boundaries(full);
  ASSERT_GE(ends.size(), 4u) << "the file should have several chunks";
  ASSERT_EQ(ends.back(), full.size());
  for (std::size_t n = 0; n <= full.size(); ++n) {
    write_bytes(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    const bool boundary = std::find(ends.begin(), ends.end(), n) != ends.end();
    EXPECT_EQ(read_ok(), boundary) << "truncated to " << n << " of " << full.size() << " bytes";
    if (boundary) {
      const RankTrace t = read_trace(path_);
      EXPECT_EQ(t.complete, n == full.size());
    }
  }
}

TEST_F(TraceFuzz, ByteFlipsAfterTheHeaderAreCaught) {
  const Bytes full = valid_file();
  for (std::size_t p = 0; p < full.size(); ++p)
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      Bytes b = full;
      b[p] ^= mask;
      write_bytes(b);
      const bool ok = read_ok();
      // A header may flip into another valid one (a run id, a larger world);
      // past it, the checksums notice every flip.
      if (p >= 28) {
        EXPECT_FALSE(ok) << "flip at " << p;
      }
    }
}

TEST_F(TraceFuzz, MutatedRecordsBehindAValidChecksum) {
  const Bytes full = valid_file();
  std::mt19937_64 rng(7);
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    Bytes b = full;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      const std::size_t p = 28 + rng() % (b.size() - 28);
      b[p] = static_cast<unsigned char>(rng());
    }
    fix_crcs(b);
    write_bytes(b);
    errors += !read_ok();
  }
  EXPECT_GT(errors, 1000);  // most mutations break a record or a length
}

TEST_F(TraceFuzz, RandomGarbage) {
  const Bytes full = valid_file();
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3000; ++round) {
    const std::size_t n = rng() % 300;
    Bytes b(n);
    for (auto& c : b) c = static_cast<unsigned char>(rng());
    switch (round % 3) {
      case 0:  // plain garbage
        break;
      case 1:  // a valid header, then garbage
        b.insert(b.begin(), full.begin(), full.begin() + 28);
        break;
      case 2: {  // a valid header and one checksummed chunk of garbage records
        Bytes frame(full.begin(), full.begin() + 28);
        const auto len = static_cast<std::uint32_t>(n);
        for (int i = 0; i < 4; ++i) frame.push_back((len >> (8 * i)) & 0xff);
        for (int i = 0; i < 4; ++i) frame.push_back(0);
        if (n > 0) b[0] = static_cast<unsigned char>(1 + rng() % 7);  // a real kind
        frame.insert(frame.end(), b.begin(), b.end());
        b = frame;
        fix_crcs(b);
        break;
      }
    }
    write_bytes(b);
    read_ok();
  }
}

TEST_F(TraceFuzz, MissingFileAndDirectory) {
  EXPECT_THROW(read_trace((dir_ / "absent.mqt").string()), Error);
  EXPECT_THROW(read_trace(dir_.string()), Error);
}

}  // namespace
}  // namespace gc::mq
