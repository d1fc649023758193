// InitProducerId v0-5. v2: flexible. v3: producer id/epoch for epoch bumps
// (KIP-360). v4: keep_prepared_txn is v6 (KIP-939), not served.
// Idempotent producers (no transactional id) get a fresh producer id with
// epoch 0. Transactional ids need the transaction coordinator, which is not
// built yet: they are answered COORDINATOR_NOT_AVAILABLE, which clients retry.
#include "broker/handlers/handlers.h"
#include "txn/producer_ids.h"

namespace ketch::broker {

using namespace kafka;

awaitable<init_producer_id_response> handle_init_producer_id(request_context& ctx, init_producer_id_request& req) {
    init_producer_id_response resp;
    if (req.transactional_id) {
        resp.error_code = code(error_code::coordinator_not_available);
        resp.producer_id = -1;
        resp.producer_epoch = -1;
        co_return resp;
    }
    resp.producer_id = ctx.broker.producer_ids.next();
    resp.producer_epoch = 0;
    co_return resp;
}

}  // namespace ketch::broker
