#include "broker/txn_verification.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/blocking.h"
#include "broker/handler_clock.h"
#include "broker/live_brokers.h"
#include "broker/txn_forward.h"
#include "txn/coordinator.h"

namespace ketch::broker {

txn_operation produce_txn_operation(int16_t produce_version) {
    if (produce_version > 11) return txn_operation::add_partition;
    if (produce_version > 10) return txn_operation::generic_error;
    return txn_operation::default_error;
}

txn_operation txn_offset_commit_operation(int16_t txn_offset_commit_version) {
    if (txn_offset_commit_version > 4) return txn_operation::add_partition;
    if (txn_offset_commit_version > 3) return txn_operation::generic_error;
    return txn_operation::default_error;
}

namespace {

// AddPartitionsToTxnManager's handler: the codes producers expect.
error_code manager_error(error_code e, txn_operation op) {
    if (e == error_code::producer_fenced) return error_code::invalid_producer_epoch;
    if (e == error_code::transaction_abortable && op == txn_operation::default_error)
        return error_code::invalid_txn_state;
    return e;
}

// Cluster mode, the id coordinated by another broker: AddPartitionsToTxn v5
// to it (txn_forward.h), as AddPartitionsToTxnManager sends it. Adds already
// answered at this epoch are not asked again (added_partitions_cache).
boost::asio::awaitable<std::map<txn::topic_partition, error_code>> ask_remote(request_context& ctx,
                                                                              const txn_verify_request& r) {
    std::map<txn::topic_partition, error_code> out;
    auto* remote = remote_txns_of(ctx.broker);
    if (!remote) co_return out;  // not verified (unit tests)
    const bool add = r.op == txn_operation::add_partition;
    std::vector<txn::topic_partition> ask;
    for (auto& tp : r.partitions)
        if (!add || !remote->added.contains(r.producer_id, r.producer_epoch, tp)) ask.push_back(tp);
    if (ask.empty()) co_return out;
    remote_txn_coordinator::call c{owner_of(live_brokers(ctx), "txn:" + r.transactional_id).node_id,
                                   r.transactional_id,
                                   r.producer_id,
                                   r.producer_epoch,
                                   &ask,
                                   !add};
    // References only (g++ 12 and co_await temporaries, see 11_join_group.cc).
    using answers = std::map<txn::topic_partition, error_code>;
    auto answer = co_await on_callback<answers>([remote, &c](std::function<void(answers)> done) {
        remote->run([remote, &c, done = std::move(done)] { done(remote->add_or_verify(c)); });
    });
    std::vector<txn::topic_partition> added;
    for (auto& tp : ask) {
        auto it = answer.find(tp);
        const error_code e = it == answer.end() ? error_code::unknown_server_error : it->second;
        if (e == error_code::none)
            added.push_back(tp);
        else
            out[tp] = manager_error(e, r.op);
    }
    if (add && !added.empty()) remote->added.insert(r.producer_id, r.producer_epoch, added);
    co_return out;
}

}  // namespace

boost::asio::awaitable<std::map<txn::topic_partition, error_code>> verify_or_add_partitions(
    request_context& ctx, const txn_verify_request& r) {
    std::map<txn::topic_partition, error_code> out;
    if (!txn_coordinator_here(ctx, r.transactional_id)) co_return co_await ask_remote(ctx, r);
    auto* txns = ctx.broker.txns;
    if (!txns) {
        // AddPartitionsToTxnManager.verifyTransaction: no coordinator node.
        for (auto& tp : r.partitions) out[tp] = error_code::coordinator_not_available;
        co_return out;
    }
    if (r.op == txn_operation::add_partition) {
        // References only (g++ 12 and co_await temporaries, see 11_join_group.cc).
        auto e = co_await blocking_call<error_code>(ctx.broker, [txns, &r] {
            return txns->add_partitions(r.transactional_id, r.producer_id, r.producer_epoch, r.partitions, 2);
        });
        if (e != error_code::none)
            for (auto& tp : r.partitions) out[tp] = manager_error(e, r.op);
        co_return out;
    }
    // Verification only reads the coordinator's memory: no store write.
    for (auto& [tp, e] : txns->verify_partitions(r.transactional_id, r.producer_id, r.producer_epoch, r.partitions))
        if (e != error_code::none) out[tp] = manager_error(e, r.op);
    co_return out;
}

boost::asio::awaitable<bool> wait_to_retry(request_context& ctx, const std::string& id,
                                           std::chrono::steady_clock::time_point start) {
    auto* txns = ctx.broker.txns;
    if (!txns || std::chrono::steady_clock::now() - start >= k_txn_retry_max) co_return false;
    auto ex = co_await boost::asio::this_coro::executor;
    auto timer = std::make_shared<boost::asio::steady_timer>(ex, k_txn_retry_backoff);
    // The wake comes from the completing thread (or at once): it cancels the
    // timer on the reactor, after this coroutine waits on it.
    // Another broker's transaction: this one hears nothing of its end (the backoff alone).
    const bool here = txn_coordinator_here(ctx, id);
    const uint64_t token =
        here ? txns->when_completed(id, [timer, ex] { boost::asio::post(ex, [timer] { timer->cancel(); }); }) : 0;
    handler_clock* clock = handler_clock::pause_current();
    co_await timer->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    handler_clock::resume(clock);
    if (here) txns->forget_waiter(id, token);
    co_return true;
}

boost::asio::awaitable<std::map<txn::topic_partition, error_code>> verify_or_add_partitions_retrying(
    request_context& ctx, const txn_verify_request& r) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        auto out = co_await verify_or_add_partitions(ctx, r);
        const bool concurrent = std::any_of(out.begin(), out.end(),
                                            [](auto& p) { return p.second == error_code::concurrent_transactions; });
        if (!concurrent) co_return out;
        const bool again = co_await wait_to_retry(ctx, r.transactional_id, start);
        if (!again) co_return out;
    }
}

txn_verify_error produce_verification_error(error_code e, txn_operation op) {
    auto unable = [e] {
        return txn_verify_error{error_code::not_enough_replicas,
                                "Unable to verify the partition has been added to the transaction. Underlying error: " +
                                    std::string(error_name(e))};
    };
    switch (e) {
        case error_code::invalid_txn_state:
            return {error_code::invalid_txn_state, "Partition was not added to the transaction"};
        case error_code::network_exception:
        case error_code::coordinator_load_in_progress:
        case error_code::coordinator_not_available:
        case error_code::not_coordinator: return unable();
        case error_code::concurrent_transactions:
            if (op != txn_operation::add_partition) return unable();
            break;
        // Cluster mode: the coordinator refused this broker's inter-broker
        // login. Kafka answers the producer SASL_AUTHENTICATION_FAILED, which
        // it takes for its own login and gives up; a broker's settings are
        // the operator's to fix, so retriable, as Kafka's own
        // validateShareGroupMember answers an inter-broker authentication
        // failure COORDINATOR_NOT_AVAILABLE (docs/compatibility.md).
        case error_code::sasl_authentication_failed:
            return {error_code::not_enough_replicas,
                    "Unable to verify the partition has been added to the transaction: the transaction coordinator "
                    "refused this broker's inter-broker login (see the broker's log). Underlying error: "
                    "SASL_AUTHENTICATION_FAILED"};
        default: break;
    }
    // No message of its own: Kafka answers the code alone (recorded, transactions-v2-produce).
    return {e, std::nullopt};
}

}  // namespace ketch::broker
