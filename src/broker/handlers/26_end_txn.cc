// EndTxn v0-4. v1: same as v0. v2: PRODUCER_FENCED (below:
// INVALID_PRODUCER_EPOCH). v3: flexible. v4: TRANSACTION_ABORTABLE may be
// answered (KIP-890). v5 (transaction version 2: the epoch is bumped at every
// end) is not served, so clients run the classic protocol.
// Behaviour: KafkaApis.handleEndTxnRequest and
// TransactionCoordinator.endTransactionWithTV1 (Kafka 4.3.1): answered once
// PrepareCommit/PrepareAbort is durable; markers follow.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "txn/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<end_txn_response> handle_end_txn(request_context& ctx, end_txn_request& req) {
    end_txn_response resp;
    // KafkaApis.handleEndTxnRequest: WRITE on the transactional id.
    if (!ctx.authorize(security::acl_operation::write, security::resource_type::transactional_id,
                       req.transactional_id)) {
        resp.error_code = code(error_code::transactional_id_authorization_failed);
        co_return resp;
    }
    auto* txns = ctx.broker.txns;
    if (!txns) {
        resp.error_code = code(error_code::coordinator_not_available);
        co_return resp;
    }
    auto e = co_await blocking_call<error_code>(ctx.broker, [txns, &req] {
        return txns->end_txn(req.transactional_id, req.producer_id, req.producer_epoch, req.committed);
    });
    if (e == error_code::producer_fenced && ctx.api_version < 2) e = error_code::invalid_producer_epoch;
    resp.error_code = code(e);
    co_return resp;
}

// EndTxnRequest.getErrorResponse: the top-level error.
std::optional<end_txn_response> end_txn_error(const end_txn_request&, int16_t, const error_answer& e) {
    return top_level_error<end_txn_response>(e);
}

}  // namespace ketch::broker
