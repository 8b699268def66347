// The envelope MPI matches on: (communicator, source, tag), with the
// wildcards MPI_ANY_SOURCE and MPI_ANY_TAG on the receive side (MPI-4.1
// section 3.5). mq/ is serial and independent of mpi.h: communicators are
// small integer ids given by the trace, wildcards are the constants below.
#pragma once

#include <cstdint>

namespace gc::mq {

constexpr std::int32_t kAnySource = -1;
constexpr std::int32_t kAnyTag = -1;

struct Envelope {
  std::uint32_t comm = 0;
  std::int32_t source = 0;  // a rank in comm, or kAnySource (receives only)
  std::int32_t tag = 0;     // >= 0, or kAnyTag (receives only)
};

// Does a posted receive with envelope `receive` accept a message `message`?
inline bool accepts(const Envelope& receive, const Envelope& message) {
  return receive.comm == message.comm &&
         (receive.source == kAnySource || receive.source == message.source) &&
         (receive.tag == kAnyTag || receive.tag == message.tag);
}

}  // namespace gc::mq
