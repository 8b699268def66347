// Placeholder: implemented by the engine's own change.
#include "core/error.hpp"
#include "mq/engines.hpp"

namespace gc::mq {

std::unique_ptr<Engine> make_bins(const EngineOptions&) { fail("engine not built yet"); }

std::unique_ptr<Engine> make_hash(const EngineOptions&) { fail("engine not built yet"); }

}  // namespace gc::mq
