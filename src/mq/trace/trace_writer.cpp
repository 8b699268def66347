// TraceWriter: one rank's trace file, appended in checksummed chunks so that
// whatever was flushed stays readable when the program dies (format in
// docs/mq-trace.md). The buffer is allocated once and never grows, so that a
// signal handler may flush it at any moment: add() encodes a record beyond
// the committed bytes and only then commits it.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "mq/trace/trace.hpp"
#include "mq/trace/trace_codec.hpp"

namespace gc::mq {

TraceWriter::TraceWriter(const std::string& path, int rank, int world_size, std::uint64_t run_id,
                         std::size_t chunk_bytes)
    : path_(path) {
  if (world_size < 1 || world_size > codec::kMaxWorldSize || rank < 0 || rank >= world_size)
    fail(fmt::format("{}: cannot write a trace of rank {} of {}", path, rank, world_size));
  chunk_bytes = std::clamp<std::size_t>(chunk_bytes, 256, codec::kMaxChunkBytes);
  buffer_.resize(codec::kChunkHeaderBytes + chunk_bytes);
  committed_ = codec::kChunkHeaderBytes;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  unsigned char header[codec::kHeaderBytes];
  std::memcpy(header, codec::kMagic, sizeof codec::kMagic);
  unsigned char* p = header + sizeof codec::kMagic;
  p = codec::put_u32(p, kTraceVersion);
  p = codec::put_i32(p, rank);
  p = codec::put_i32(p, world_size);
  codec::put_u64(p, run_id);
  write_all(header, sizeof header);
  if (error_ != 0) {
    ::close(fd_);
    fd_ = -1;
    check();
  }
}

TraceWriter::~TraceWriter() {
  if (fd_ < 0) return;
  flush();
  ::close(fd_);
}

void TraceWriter::check() const {
  if (error_ != 0) fail(fmt::format("{}: cannot write: {}", path_, std::strerror(error_)));
}

void TraceWriter::write_all(const unsigned char* data, std::size_t n) noexcept {
  while (n > 0 && error_ == 0) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

void TraceWriter::add(const Record& r) {
  check();
  if (fd_ < 0) fail(fmt::format("{}: the trace is closed", path_));
  const std::size_t n = codec::encoded_bytes(r);
  const std::size_t capacity = buffer_.size() - codec::kChunkHeaderBytes;
  if (n > capacity) {
    // A record larger than a chunk (a communicator of very many ranks): a
    // chunk of its own, written from a buffer of its own.
    flush();
    std::vector<unsigned char> chunk(codec::kChunkHeaderBytes + n);
    codec::encode(r, chunk.data() + codec::kChunkHeaderBytes);
    const auto crc = crc32(0L, chunk.data() + codec::kChunkHeaderBytes, static_cast<uInt>(n));
    codec::put_u32(codec::put_u32(chunk.data(), static_cast<std::uint32_t>(n)),
                   static_cast<std::uint32_t>(crc));
    write_all(chunk.data(), chunk.size());
    check();
    return;
  }
  if (committed_ + n > buffer_.size()) {
    flush();
    check();
  }
  codec::encode(r, buffer_.data() + committed_);
  committed_ += n;  // the record is whole: a signal handler may write it from now on
}

void TraceWriter::flush() noexcept {
  if (fd_ < 0 || flushing_.exchange(true)) return;
  const std::size_t end = committed_;
  const std::size_t n = end - codec::kChunkHeaderBytes;
  if (n > 0) {
    const auto crc = crc32(0L, buffer_.data() + codec::kChunkHeaderBytes, static_cast<uInt>(n));
    codec::put_u32(codec::put_u32(buffer_.data(), static_cast<std::uint32_t>(n)),
                   static_cast<std::uint32_t>(crc));
    write_all(buffer_.data(), end);  // one write(): a whole chunk or none
    committed_ = codec::kChunkHeaderBytes;
  }
  flushing_ = false;
}

void TraceWriter::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && error_ == 0) error_ = errno;
  check();
}

}  // namespace gc::mq
