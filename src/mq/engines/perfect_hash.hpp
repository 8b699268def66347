// A collision-free (perfect) hash of a static key set by row displacement,
// as the partner engines of Ghazimirsaeed, Mirsadeghi and Afsahi,
// "Communication-aware message matching in MPI" (CCPE 2018) locate their
// partner queues; the construction is Tarjan and Yao's "Storing a sparse
// table" (CACM 1979).
//
// The key universe [0, U) is laid out as an m x m matrix, m = ceil(sqrt(U))
// (at least 2): key k sits at row k / m, column k mod m. Each row gets a
// displacement such that the rows, shifted by it, overlap in one 1-D table
// without two keys landing on the same slot (first fit, fullest rows first);
// the table is then collapsed to the slots any row can reach. A lookup is
// one division, one displacement and one table entry, whose stored key tells
// a hit from a non-key. The division by m is a multiplication by a
// precomputed 64-bit reciprocal (Lemire, Kaser and Kurz, "Faster remainder by
// direct computation", SPE 2019: exact for every 32-bit key), as a lookup
// sits on every matching operation of the partner engines. Memory: m
// displacements plus about (keys + m) entries, so O(keys + sqrt(U)), never
// O(U).
#pragma once

#include <cstdint>
#include <vector>

namespace gc::mq {

class PerfectHash {
 public:
  // Empty: every lookup misses.
  PerfectHash() = default;
  // keys: distinct, each < universe. The value of keys[i] is i.
  PerfectHash(const std::vector<std::uint32_t>& keys, std::uint32_t universe);

  // The index of `key` in the keys given, or -1 when it is not one of them.
  // An empty hash has no rows, so every key misses at the row check.
  std::int32_t lookup(std::uint32_t key) const {
    const auto row = static_cast<std::uint32_t>((Wide{reciprocal_} * key) >> 64);  // key / m
    if (row >= rows_) return -1;
    const Entry& e = table_[displacement_[row] + (key - row * width_)];
    return e.key == key ? e.value : -1;
  }

  bool empty() const { return keys_ == 0; }
  std::uint32_t size() const { return keys_; }
  std::uint32_t width() const { return width_; }  // m
  std::uint64_t table_slots() const { return table_.size(); }
  std::uint64_t memory_bytes() const {
    return sizeof(*this) + displacement_.size() * sizeof(std::uint32_t) +
           table_.size() * sizeof(Entry);
  }

 private:
  __extension__ using Wide = unsigned __int128;
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  struct Entry {
    std::uint32_t key = kEmpty;
    std::int32_t value = -1;
  };
  std::uint32_t width_ = 2;       // m, at least 2 so that the reciprocal fits 64 bits
  std::uint64_t reciprocal_ = 0;  // ceil(2^64 / m); 0 when empty
  std::uint32_t rows_ = 0;        // displacement_.size()
  std::uint32_t keys_ = 0;
  std::vector<std::uint32_t> displacement_;  // per row (m rows, none when empty)
  std::vector<Entry> table_;                 // displacement + m slots for every row: no bound check
};

}  // namespace gc::mq
