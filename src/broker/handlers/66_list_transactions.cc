// ListTransactions v0-2 (KIP-664, flexible). v1: duration_filter (KIP-994);
// v2: transactional_id_pattern (KIP-1152), an RE2 pattern the whole id
// matches (Kafka compiles it with re2j), null or empty for every id.
// Behaviour: KafkaApis.handleListTransactionsRequest and
// TransactionStateManager.listTransactionStates (Kafka 4.3.1): unknown state
// names come back in unknown_state_filters (and then match nothing); Dead ids
// are never listed; duration_filter >= 0 keeps transactions running longer.
#include "broker/handlers/handlers.h"
#include "txn/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<list_transactions_response> handle_list_transactions(request_context& ctx, list_transactions_request& req) {
    if (!ctx.broker.txns)
        co_return list_transactions_response{.error_code = code(error_code::coordinator_not_available)};
    auto r = ctx.broker.txns->list(req.state_filters, req.producer_id_filters,
                                   ctx.api_version >= 1 ? req.duration_filter : -1,
                                   req.transactional_id_pattern.value_or(std::string{}));
    list_transactions_response resp;
    resp.error_code = code(r.error);
    resp.unknown_state_filters = r.unknown_state_filters;
    for (auto& t : r.txns) {
        // KafkaApis.handleListTransactionsRequest: only ids the caller may describe.
        if (!ctx.authorize(security::acl_operation::describe, security::resource_type::transactional_id,
                           t.transactional_id))
            continue;
        auto& s = resp.transaction_states.emplace_back();
        s.transactional_id = t.transactional_id;
        s.producer_id = t.producer_id;
        s.transaction_state = t.state;
    }
    co_return resp;
}

}  // namespace ketch::broker
