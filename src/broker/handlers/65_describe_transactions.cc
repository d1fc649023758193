// DescribeTransactions v0 (KIP-664, flexible).
// Behaviour: KafkaApis.handleDescribeTransactionsRequest and
// TransactionCoordinator.handleDescribeTransactions (Kafka 4.3.1): one entry
// per requested id; an unknown (or expiring) id is TRANSACTIONAL_ID_NOT_FOUND,
// "" is INVALID_REQUEST; partitions are grouped by topic.
#include "broker/handlers/handlers.h"
#include "txn/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<describe_transactions_response> handle_describe_transactions(request_context& ctx,
                                                                       describe_transactions_request& req) {
    describe_transactions_response resp;
    for (auto& id : req.transactional_ids) {
        auto& s = resp.transaction_states.emplace_back();
        s.transactional_id = id;
        // KafkaApis.handleDescribeTransactionsRequest: DESCRIBE on the id;
        // only the topics the caller may describe are listed.
        if (!ctx.authorize(security::acl_operation::describe, security::resource_type::transactional_id, id)) {
            s.error_code = code(error_code::transactional_id_authorization_failed);
            continue;
        }
        if (!ctx.broker.txns) {
            s.error_code = code(error_code::coordinator_not_available);
            continue;
        }
        auto d = ctx.broker.txns->describe(id);
        s.error_code = code(d.error);
        if (d.error != error_code::none) continue;
        s.transaction_state = d.state;
        s.transaction_timeout_ms = d.timeout_ms;
        s.transaction_start_time_ms = d.start_ms;
        s.producer_id = d.producer_id;
        s.producer_epoch = d.producer_epoch;
        for (auto& tp : d.partitions) {
            if (!ctx.authorize(security::acl_operation::describe, security::resource_type::topic, tp.topic)) continue;
            if (s.topics.empty() || s.topics.back().topic != tp.topic) s.topics.emplace_back().topic = tp.topic;
            s.topics.back().partitions.push_back(tp.partition);
        }
    }
    co_return resp;
}

// DescribeTransactionsRequest.getErrorResponse: each transactional id with the error.
std::optional<describe_transactions_response> describe_transactions_error(const describe_transactions_request& req,
                                                                          int16_t, const error_answer& e) {
    describe_transactions_response resp;
    for (auto& id : req.transactional_ids) error_row(resp.transaction_states, e).transactional_id = id;
    return resp;
}

}  // namespace ketch::broker
