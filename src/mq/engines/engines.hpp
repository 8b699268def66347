// The engines' constructors (one file each); make_engine (engine.cpp) picks one.
#pragma once

#include <memory>
#include <string>

#include "mq/engines/engine.hpp"

namespace gc::mq {

std::unique_ptr<Engine> make_linked_list(const EngineOptions& options);
std::unique_ptr<Engine> make_rank_array(const EngineOptions& options);
std::unique_ptr<Engine> make_bins(const EngineOptions& options);
std::unique_ptr<Engine> make_hash(const EngineOptions& options);
std::unique_ptr<Engine> make_vectors(const EngineOptions& options);
// The SIMD level make_vectors(options) uses: "avx512", "avx2" or "scalar"
// (options.simd "auto": the best the CPU has). Throws gc::Error for a level
// the CPU lacks or an unknown one.
std::string vectors_simd_level(const EngineOptions& options);
std::unique_ptr<Engine> make_partner_static(const EngineOptions& options);
std::unique_ptr<Engine> make_partner_dynamic(const EngineOptions& options);
// partner-static's partners with SIMD vector non-partner queues (options'
// vector_width and simd as for make_vectors).
std::unique_ptr<Engine> make_partner_vectors(const EngineOptions& options);

}  // namespace gc::mq
