// The byte layout of trace files (docs/mq-trace.md), shared by the writer
// (trace_writer.cpp, also built into libgraphcomm-mqtrace.so) and the reader
// (trace.cpp). Everything is little-endian, whatever the host.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mq/trace/trace.hpp"

namespace gc::mq::codec {

// File header: magic, version, rank, world size, run id.
constexpr char kMagic[8] = {'G', 'C', 'M', 'Q', 'T', 'R', 'C', '\0'};
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 4 + 8;
// Chunk header: byte length of the records, then their CRC-32 (zlib's).
constexpr std::size_t kChunkHeaderBytes = 8;
constexpr std::uint32_t kMaxChunkBytes = 64u << 20;
// Limits a reader enforces (a corrupt length must not allocate gigabytes).
constexpr std::int32_t kMaxWorldSize = 1 << 24;
constexpr std::uint32_t kMaxCommId = 1u << 20;

// Bytes of a record of each kind, kind byte included; a comm record adds
// 4 bytes per member. 0: no such kind.
constexpr std::size_t fixed_bytes(std::uint8_t kind) {
  switch (static_cast<Record::Kind>(kind)) {
    case Record::Kind::comm:
      return 1 + 4 + 4;
    case Record::Kind::send:
    case Record::Kind::post:
      return 1 + 4 + 4 + 4 + 8;
    case Record::Kind::complete:
      return 1 + 8 + 4 + 4 + 8;
    case Record::Kind::probe:
      return 1 + 4 + 4 + 4 + 4 + 4 + 8;
    case Record::Kind::cancel:
      return 1 + 8 + 8;
    case Record::Kind::end:
      return 1 + 8;
  }
  return 0;
}

inline unsigned char* put_u32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  return p;
}
inline unsigned char* put_u64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  return p;
}
inline unsigned char* put_i32(unsigned char* p, std::int32_t v) {
  return put_u32(p, static_cast<std::uint32_t>(v));
}
inline unsigned char* put_f64(unsigned char* p, double v) {
  return put_u64(p, std::bit_cast<std::uint64_t>(v));
}

inline std::uint32_t get_u32(const unsigned char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
  return v;
}
inline std::uint64_t get_u64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}
inline std::int32_t get_i32(const unsigned char* p) {
  return static_cast<std::int32_t>(get_u32(p));
}
inline double get_f64(const unsigned char* p) {
  return std::bit_cast<double>(get_u64(p));
}

// The encoded size of `r`.
inline std::size_t encoded_bytes(const Record& r) {
  const std::size_t fixed = fixed_bytes(static_cast<std::uint8_t>(r.kind));
  return r.kind == Record::Kind::comm ? fixed + 4 * r.world_ranks.size() : fixed;
}

// Writes `r` at `p` (encoded_bytes(r) bytes); returns the end.
inline unsigned char* encode(const Record& r, unsigned char* p) {
  *p++ = static_cast<unsigned char>(r.kind);
  switch (r.kind) {
    case Record::Kind::comm:
      p = put_u32(p, r.comm);
      p = put_i32(p, static_cast<std::int32_t>(r.world_ranks.size()));
      for (std::int32_t w : r.world_ranks) p = put_i32(p, w);
      break;
    case Record::Kind::send:
    case Record::Kind::post:
      p = put_u32(p, r.comm);
      p = put_i32(p, r.peer);
      p = put_i32(p, r.tag);
      p = put_f64(p, r.time);
      break;
    case Record::Kind::complete:
      p = put_u64(p, r.index);
      p = put_i32(p, r.peer);
      p = put_i32(p, r.tag);
      p = put_f64(p, r.time);
      break;
    case Record::Kind::probe:
      p = put_u32(p, r.comm);
      p = put_i32(p, r.peer);
      p = put_i32(p, r.tag);
      p = put_i32(p, r.found_peer);
      p = put_i32(p, r.found_tag);
      p = put_f64(p, r.time);
      break;
    case Record::Kind::cancel:
      p = put_u64(p, r.index);
      p = put_f64(p, r.time);
      break;
    case Record::Kind::end:
      p = put_f64(p, r.time);
      break;
  }
  return p;
}

}  // namespace gc::mq::codec
