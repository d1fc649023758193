// EndTxn v0-5. v1: same as v0. v2: PRODUCER_FENCED (below:
// INVALID_PRODUCER_EPOCH). v3: flexible. v4: TRANSACTION_ABORTABLE may be
// answered (KIP-890). v5: transaction version 2 (KIP-890): the epoch is
// bumped at every end and the answer carries the producer id and epoch.
// Behaviour: KafkaApis.handleEndTxnRequest (a v5+ request is a TV_2 client,
// below TV_0) and TransactionCoordinator.endTransactionWithTV1 /
// endTransaction (Kafka 4.3.1): answered once PrepareCommit/PrepareAbort is
// durable; markers follow.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "txn/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<end_txn_response> handle_end_txn(request_context& ctx, end_txn_request& req) {
    if (auto e = txn_request_refusal(ctx, req.transactional_id); e != error_code::none)
        co_return end_txn_response{.error_code = code(e)};
    auto* txns = ctx.broker.txns;
    const bool v2 = ctx.api_version >= 5;
    // References only (g++ 12 and co_await temporaries, see 11_join_group.cc).
    auto r = co_await blocking_call<txn::end_txn_result>(ctx.broker, [txns, &req, v2] {
        if (v2) return txns->end_txn_v2(req.transactional_id, req.producer_id, req.producer_epoch, req.committed);
        return txn::end_txn_result{
            txns->end_txn(req.transactional_id, req.producer_id, req.producer_epoch, req.committed)};
    });
    if (r.error == error_code::producer_fenced && ctx.api_version < 2) r.error = error_code::invalid_producer_epoch;
    co_return end_txn_response{
        .error_code = code(r.error), .producer_id = r.producer_id, .producer_epoch = r.producer_epoch};
}

}  // namespace ketch::broker
