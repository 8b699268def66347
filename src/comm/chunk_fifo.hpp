// A FIFO in fixed-size chunks, for the messages a kernel pushes faster than
// an exchange's flow control lets them out (round_exchange.hpp, nsr.cpp). Its
// memory follows the backlog: a chunk is freed as soon as it drains (one is
// kept for reuse), and growing never copies or doubles, as a vector's would.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>

namespace gc {

template <class T>
class ChunkFifo {
 public:
  static constexpr size_t kChunk = 4096;  // elements per chunk

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push_back(const T& value) {
    if (chunks_.empty() || tail_ == kChunk) {
      chunks_.push_back(spare_ ? std::move(spare_) : std::make_unique_for_overwrite<T[]>(kChunk));
      tail_ = 0;
      peak_chunks_ = std::max(peak_chunks_, chunks_.size() + 1);
    }
    chunks_.back()[tail_++] = value;
    ++size_;
  }

  // Makes the first chunk now (its first page touched, the deque's own block
  // allocated), so that the first push does not: for an exchange's setup,
  // which is timed apart from its phases. The memory is what the first push
  // would take and keep (a drained chunk stays as the spare).
  void prepare() {
    if (!chunks_.empty() || spare_) return;
    auto chunk = std::make_unique_for_overwrite<T[]>(kChunk);
    chunk[0] = T{};
    chunks_.push_back(std::move(chunk));
    spare_ = std::move(chunks_.front());
    chunks_.pop_front();
    peak_chunks_ = std::max<size_t>(peak_chunks_, 1);
  }

  const T& front() const { return chunks_.front()[head_]; }

  // f(span) over the first n elements, in order, a chunk's part at a time.
  template <class F>
  void for_each_piece(size_t n, F&& f) const {
    size_t at = head_;
    for (size_t c = 0; n > 0; ++c, at = 0) {
      const size_t end = c + 1 == chunks_.size() ? tail_ : kChunk;
      const size_t take = std::min(n, end - at);
      f(std::span<const T>(chunks_[c].get() + at, take));
      n -= take;
    }
  }

  void pop_front(size_t n = 1) {
    size_ -= n;
    head_ += n;
    while (!chunks_.empty() && (head_ >= kChunk || (size_ == 0 && chunks_.size() == 1))) {
      head_ -= std::min(head_, kChunk);
      spare_ = std::move(chunks_.front());
      chunks_.pop_front();
      if (chunks_.empty()) head_ = tail_ = 0;
    }
  }

  // The most memory its chunks (the spare included) ever held.
  std::uint64_t peak_bytes() const { return peak_chunks_ * kChunk * sizeof(T); }

 private:
  std::deque<std::unique_ptr<T[]>> chunks_;
  std::unique_ptr<T[]> spare_;
  size_t head_ = 0;  // first element, in chunks_.front()
  size_t tail_ = 0;  // one past the last element, in chunks_.back()
  size_t size_ = 0;
  size_t peak_chunks_ = 0;
};

}  // namespace gc
