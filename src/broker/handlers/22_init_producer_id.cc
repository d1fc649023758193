// InitProducerId v0-5. v1: same as v0. v2: flexible. v3: producer id/epoch
// for epoch bumps (KIP-360). v4: PRODUCER_FENCED (KIP-588); v5: same as v4.
// v6 (2PC, KIP-939) is not served.
// Behaviour: KafkaApis.handleInitProducerIdRequest and
// TransactionCoordinator.handleInitProducerId (Kafka 4.3.1):
// - no transactional id: a fresh producer id with epoch 0 (any
//   producer id/epoch in the request is ignored);
// - producer id and epoch must be both -1 or both set, else INVALID_REQUEST;
// - with a transactional id: the transaction coordinator (txn/coordinator.h);
// - PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH below v4.
#include <exception>

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "txn/coordinator.h"
#include "txn/producer_ids.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// A producer id, or what reserving its block threw (rethrown on the reactor).
struct minted_id {
    int64_t id = -1;
    std::exception_ptr failed;
};

}  // namespace

awaitable<init_producer_id_response> handle_init_producer_id(request_context& ctx, init_producer_id_request& req) {
    init_producer_id_response resp;
    resp.producer_id = -1;
    resp.producer_epoch = -1;
    // KafkaApis.handleInitProducerIdRequest: WRITE on the transactional id;
    // an idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE
    // on some topic (Authorizer.authorizeByResourceType).
    using security::acl_operation, security::resource_type;
    if (req.transactional_id
            ? !ctx.authorize(acl_operation::write, resource_type::transactional_id, *req.transactional_id)
            : !ctx.authorize_cluster(acl_operation::idempotent_write) &&
                  !ctx.authorize_any(acl_operation::write, resource_type::topic)) {
        resp.error_code = code(req.transactional_id ? error_code::transactional_id_authorization_failed
                                                    : error_code::cluster_authorization_failed);
        co_return resp;
    }
    const bool no_pid = req.producer_id == -1, no_epoch = req.producer_epoch == -1;
    if (no_pid != no_epoch) {
        resp.error_code = code(error_code::invalid_request);
        co_return resp;
    }
    if (!req.transactional_id) {
        // A fresh block of ids is reserved durably (a file's fsync; cluster
        // mode: PostgreSQL, on a connection of the pool): off the reactor.
        auto& ids = ctx.broker.producer_ids;
        auto m = co_await blocking_call<minted_id>(ctx.broker, [&ids] {
            minted_id out;
            try {
                out.id = ids.next();
            } catch (...) {
                out.failed = std::current_exception();
            }
            return out;
        });
        if (m.failed) std::rethrow_exception(m.failed);
        resp.producer_id = m.id;
        resp.producer_epoch = 0;
        co_return resp;
    }
    if (auto e = txn_coordinator_refusal(ctx, *req.transactional_id); e != error_code::none) {
        resp.error_code = code(e);
        co_return resp;
    }
    std::optional<txn::pid_and_epoch> expected;
    if (!no_pid) expected = txn::pid_and_epoch{req.producer_id, req.producer_epoch};
    auto* txns = ctx.broker.txns;
    // References only: g++ 12 mishandles a co_await operand's temporaries
    // that own memory (see 11_join_group.cc).
    auto r = co_await blocking_call<txn::init_pid_result>(ctx.broker, [txns, &req, &expected] {
        return txns->init_producer_id(*req.transactional_id, req.transaction_timeout_ms, expected);
    });
    if (r.error == error_code::producer_fenced && ctx.api_version < 4) r.error = error_code::invalid_producer_epoch;
    resp.error_code = code(r.error);
    resp.producer_id = r.producer_id;
    resp.producer_epoch = r.producer_epoch;
    co_return resp;
}

// InitProducerIdRequest.getErrorResponse: the error, no producer id or epoch.
std::optional<init_producer_id_response> init_producer_id_error(const init_producer_id_request&, int16_t,
                                                                const error_answer& e) {
    init_producer_id_response resp;
    resp.error_code = e.code;
    resp.producer_id = -1;
    resp.producer_epoch = -1;
    return resp;
}

}  // namespace ketch::broker
