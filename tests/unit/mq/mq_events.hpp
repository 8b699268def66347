// Hand-made matching events for the mq tests: a receive posted, a message
// arrived, a probe, each with a source, a tag and a communicator id.
#pragma once

#include <cstdint>

#include "mq/engines/replay.hpp"

namespace gc::mq::test {

inline Event post(std::int32_t source, std::int32_t tag, std::uint32_t comm = 0) {
  return {Event::Kind::post, {comm, source, tag}};
}
inline Event arrive(std::int32_t source, std::int32_t tag = 0, std::uint32_t comm = 0) {
  return {Event::Kind::arrive, {comm, source, tag}};
}
inline Event probe(std::int32_t source, std::int32_t tag, std::uint32_t comm = 0) {
  return {Event::Kind::probe, {comm, source, tag}};
}

}  // namespace gc::mq::test
