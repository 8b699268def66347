// partner-static: the engine of partner_static.hpp over linked lists.
#include "mq/engines/partner_static.hpp"
#include "mq/engines/engines.hpp"

namespace gc::mq {

std::unique_ptr<Engine> make_partner_static(const EngineOptions& options) {
  return std::make_unique<PartnerStaticEngine<ListQueues>>(options);
}

}  // namespace gc::mq
