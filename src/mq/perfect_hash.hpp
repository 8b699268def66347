// A collision-free (perfect) hash of a static key set by row displacement,
// as the partner engines of Ghazimirsaeed, Mirsadeghi and Afsahi,
// "Communication-aware message matching in MPI" (CCPE 2018) locate their
// partner queues; the construction is Tarjan and Yao's "Storing a sparse
// table" (CACM 1979).
//
// The key universe [0, U) is laid out as an m x m matrix, m = ceil(sqrt(U)):
// key k sits at row k / m, column k mod m. Each row gets a displacement such
// that the rows, shifted by it, overlap in one 1-D table without two keys
// landing on the same slot (first fit, fullest rows first); the table is then
// collapsed to the slots any row can reach. A lookup is one division, one
// displacement and one table entry, whose stored key tells a hit from a
// non-key. Memory: m displacements plus about (keys + m) entries, so
// O(keys + sqrt(U)), never O(U).
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
  std::int32_t lookup(std::uint32_t key) const {
    const std::uint32_t row = key / width_;
    if (row >= displacement_.size()) return -1;
    const Entry& e = table_[displacement_[row] + key % width_];
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
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  struct Entry {
    std::uint32_t key = kEmpty;
    std::int32_t value = -1;
  };
  std::uint32_t width_ = 1;
  std::uint32_t keys_ = 0;
  std::vector<std::uint32_t> displacement_;  // per row (m rows, none when empty)
  std::vector<Entry> table_;                 // displacement + m slots for every row: no bound check
};

}  // namespace gc::mq
