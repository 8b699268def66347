// core/mpi.hpp's helpers: sparse_alltoallv (what gc::alltoallv runs where the
// library's MPI_Alltoallv costs a step per rank pair) moves exactly what
// MPI_Alltoallv moves, with empty blocks, records wider than a byte, on the
// world and on a part of it, several times in a row; exscan_sum_by_doubling
// (what gc::exscan_sum runs where the library's MPI_Exscan is quadratic) sums
// what MPI_Exscan sums; min_over_ranks and max_over_ranks order unsigned
// values above the sign bit as unsigned (the packaged libraries' MPI_MIN and
// MPI_MAX do not).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/mpi.hpp"

namespace gc {
namespace {

struct Record {
  std::uint64_t from, to, index;
  bool operator==(const Record&) const = default;
};

// Rank `from` sends this many records to rank `to` in round `round`: zero for
// about a third of the pairs, self included.
int block_size(int from, int to, int round) {
  return (from * 7 + to * 3 + round) % 3 == 0 ? 0 : 1 + (from + 2 * to + round) % 5;
}

void expect_same_exchange(const Comm& comm, int round) {
  const int p = comm.size(), me = comm.rank();
  std::vector<int> scount(p), sdispl(p), rcount(p), rdispl(p);
  std::vector<Record> send;
  for (int to = 0; to < p; ++to) {
    sdispl[to] = static_cast<int>(send.size());
    scount[to] = block_size(me, to, round);
    for (int i = 0; i < scount[to]; ++i)
      send.push_back({static_cast<std::uint64_t>(me), static_cast<std::uint64_t>(to),
                      static_cast<std::uint64_t>(i)});
  }
  int total = 0;
  for (int from = 0; from < p; ++from) {
    rdispl[from] = total;
    rcount[from] = block_size(from, me, round);
    total += rcount[from];
  }
  const MPI_Datatype type = record_type<Record>();
  std::vector<Record> expected(static_cast<size_t>(total)), got(static_cast<size_t>(total));
  MPI_Alltoallv(send.data(), scount.data(), sdispl.data(), type, expected.data(), rcount.data(),
                rdispl.data(), type, comm.get());
  sparse_alltoallv(send.data(), scount.data(), sdispl.data(), got.data(), rcount.data(),
                   rdispl.data(), type, comm);
  EXPECT_EQ(got, expected) << "round " << round;
}

TEST(Mpi, SparseAlltoallvMovesWhatAlltoallvMoves) {
  const Comm world = Comm::world();
  const Comm part = world.split(world.rank() % 2, world.size() - world.rank());  // reversed order
  for (int round = 0; round < 3; ++round) {
    expect_same_exchange(world, round);
    expect_same_exchange(part, round);
  }
}

void expect_same_exscan(const Comm& comm) {
  // Values wide enough that a sum over the wrong ranks cannot come out right.
  const std::uint64_t mine = (std::uint64_t{1} << (3 * comm.rank() % 61)) + 7;
  std::uint64_t expected = 0;
  MPI_Exscan(&mine, &expected, 1, MPI_UINT64_T, MPI_SUM, comm.get());
  if (comm.rank() == 0) expected = 0;  // MPI leaves rank 0's undefined
  EXPECT_EQ(exscan_sum_by_doubling(comm, mine), expected);
  EXPECT_EQ(exscan_sum(comm, mine), expected);
  EXPECT_EQ(exscan_sum(comm, -static_cast<std::int64_t>(comm.rank())),
            -static_cast<std::int64_t>(comm.rank() * (comm.rank() - 1) / 2));
}

// Rank r offers value r of a row; each row's minimum and maximum over the
// ranks present must be the unsigned ones.
template <class T>
void expect_unsigned_min_max(const Comm& comm) {
  constexpr T top = std::numeric_limits<T>::max();
  constexpr T half = T{1} << (8 * sizeof(T) - 1);
  const std::vector<std::array<T, 4>> rows = {
      {0, top, 5, 7}, {half, half - 1, 3, half}, {top, top - 1, top, 1}, {2, 0, 1, 0}};
  for (const auto& row : rows) {
    const T mine = row[static_cast<std::size_t>(comm.rank() % 4)];
    T least = row[0], most = row[0];
    for (int r = 0; r < comm.size(); ++r) {
      least = std::min(least, row[static_cast<std::size_t>(r % 4)]);
      most = std::max(most, row[static_cast<std::size_t>(r % 4)]);
    }
    EXPECT_EQ(min_over_ranks(comm, mine), least);
    EXPECT_EQ(max_over_ranks(comm, mine), most);
    const std::vector<T> both = allreduce_each(comm, std::vector<T>{mine, mine}, MPI_MIN);
    EXPECT_EQ(both, (std::vector<T>{least, least}));
  }
}

TEST(Mpi, MinMaxOfUnsignedAboveTheSignBit) {
  const Comm comm = Comm::world();
  expect_unsigned_min_max<std::uint64_t>(comm);
  expect_unsigned_min_max<unsigned long long>(comm);
  expect_unsigned_min_max<std::uint32_t>(comm);
}

TEST(Mpi, ExscanByDoublingSumsWhatExscanSums) {
  const Comm world = Comm::world();
  const Comm part = world.split(world.rank() % 2, world.size() - world.rank());  // reversed order
  expect_same_exscan(world);
  expect_same_exscan(part);
}

TEST(Mpi, AlltoallvOfRecords) {
  // gc::alltoallv, whichever exchange this build uses: every record arrives
  // at its destination, in rank order of the senders.
  const Comm world = Comm::world();
  const int p = world.size(), me = world.rank();
  std::vector<Record> send;
  std::vector<std::uint64_t> counts(static_cast<size_t>(p));
  for (int to = 0; to < p; ++to) {
    counts[static_cast<size_t>(to)] = static_cast<std::uint64_t>(block_size(me, to, 0));
    for (std::uint64_t i = 0; i < counts[static_cast<size_t>(to)]; ++i)
      send.push_back({static_cast<std::uint64_t>(me), static_cast<std::uint64_t>(to), i});
  }
  std::vector<std::uint64_t> received_counts;
  const std::vector<Record> got = alltoallv(world, send, counts, &received_counts);
  std::vector<Record> expected;
  for (int from = 0; from < p; ++from) {
    EXPECT_EQ(received_counts[static_cast<size_t>(from)],
              static_cast<std::uint64_t>(block_size(from, me, 0)));
    for (int i = 0; i < block_size(from, me, 0); ++i)
      expected.push_back({static_cast<std::uint64_t>(from), static_cast<std::uint64_t>(me),
                          static_cast<std::uint64_t>(i)});
  }
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace gc
