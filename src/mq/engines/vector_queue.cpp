// The run-time SIMD choice of the vector queues (vector_queue.hpp).
#include "mq/engines/vector_queue.hpp"

#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace gc::mq {
namespace {

bool cpu_has(Simd level) {
  __builtin_cpu_init();
  switch (level) {
    case Simd::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
    case Simd::avx2:
      return __builtin_cpu_supports("avx2");
    case Simd::scalar:
      return true;
  }
  return false;
}

constexpr std::pair<const char*, Simd> kLevels[] = {
    {"avx512", Simd::avx512}, {"avx2", Simd::avx2}, {"scalar", Simd::scalar}};  // best first

}  // namespace

Simd simd_level(const EngineOptions& options, std::string_view engine) {
  for (const auto& [name, level] : kLevels)
    if (options.simd == "auto" ? cpu_has(level) : options.simd == name) {
      if (!cpu_has(level))
        fail(fmt::format("{}: this CPU lacks {} (simd: auto picks the best it has)", engine, name));
      return level;
    }
  fail(fmt::format("{}: unknown simd level '{}' (one of: auto, avx512, avx2, scalar)", engine,
                   options.simd));
}

void fail_vector_width(const EngineOptions& options, std::string_view engine) {
  fail(fmt::format("{}: vector_width must be 16 or 8, not {}", engine, options.vector_width));
}

const char* simd_name(Simd level) {
  for (const auto& [name, l] : kLevels)
    if (l == level) return name;
  return "?";
}

}  // namespace gc::mq
