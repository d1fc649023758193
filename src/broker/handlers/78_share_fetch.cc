// ShareFetch v1-2 (KIP-932). v2: ShareAcquireMode (record_limit: never
// more than MaxRecords; batch_optimized, v1's only mode: new records to the
// end of the batch holding the MaxRecords-th, as Kafka) and IsRenewAck (a
// request that renews locks fetches nothing), KIP-1206/KIP-1222. A share session (epoch 0 opens it, -1 closes
// it, otherwise each request carries the next epoch and the partitions it
// adds or forgets), the acknowledgements piggybacked on it, then records
// acquired from every partition of the session. Behaviour: KafkaApis.
// handleShareFetchRequest, SharePartitionManager.newContext / fetchMessages
// / acknowledge (Apache Kafka 4.3.1). Long polling as Fetch's: with nothing
// acquired, the request parks on its partitions until an append or
// max_wait_ms.
#include <atomic>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/blocking.h"
#include "broker/handler_clock.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/share_acks.h"
#include "broker/share_reads.h"
#include "meta/topic_registry.h"
#include "partition/service.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using share_partition_data = share_fetch_response::partition_data;

// A partition's row; Records is not nullable: a row for an acknowledgement
// or an error alone carries no records (Kafka: an empty set).
share_partition_data& share_fetch_row(share_fetch_response& resp, const share::topic_partition& tp) {
    auto add = [&tp](auto& partitions) -> share_partition_data& {
        auto& p = partitions.emplace_back();
        p.partition_index = tp.partition;
        p.records.emplace();
        return p;
    };
    for (auto& t : resp.responses)
        if (t.topic_id == tp.topic_id) {
            for (auto& p : t.partitions)
                if (p.partition_index == tp.partition) return p;
            return add(t.partitions);
        }
    auto& t = resp.responses.emplace_back();
    t.topic_id = tp.topic_id;
    return add(t.partitions);
}

// Reads every partition of the session; true when something was acquired.
bool read_share_partitions(request_context& ctx, share_fetch_request& req,
                           const std::vector<share::topic_partition>& parts, share_fetch_response& resp,
                           std::vector<partition::fetch_waiters::key>& keys) {
    bool any = false;
    // ShareAcquireMode: 0 batch_optimized (v1's only mode), 1 record_limit.
    const bool batch_optimized = ctx.api_version < 2 || req.share_acquire_mode != 1;
    uint64_t budget = uint64_t(std::max(req.max_bytes, 0));
    int32_t records_left = req.max_records > 0 ? req.max_records : INT32_MAX;
    keys.clear();
    for (auto& tp : parts) {
        auto r = read_share_partition(ctx, *req.group_id, *req.member_id, tp, std::max<uint64_t>(budget, 1),
                                      records_left, batch_optimized);
        if (!r.topic.empty()) keys.emplace_back(r.topic, tp.partition);
        if (r.error == error_code::none && r.acquired.empty()) continue;
        auto& p = share_fetch_row(resp, tp);
        p.error_code = code(r.error);
        p.records = std::move(r.recs);
        for (auto& a : r.acquired) {
            p.acquired_records.push_back({a.first_offset, a.last_offset, a.delivery_count, {}});
            records_left -= int32_t(a.last_offset - a.first_offset + 1);
        }
        budget = budget > r.bytes ? budget - r.bytes : 0;
        // A partition led elsewhere is answered at once: the client looks
        // for its leader (cluster mode).
        any |= !r.acquired.empty() || r.error == error_code::not_leader_or_follower;
        if (budget == 0 || records_left <= 0) break;
    }
    return any;
}

// read_all on the reads' threads (cluster mode: taking a share-partition's
// lease is a PostgreSQL transaction, and the shared log's reads query
// PostgreSQL and GET objects, which must not hold up the reactor's other
// connections; inline otherwise), as Fetch's reads.
awaitable<bool> read_all_off_reactor(request_context& ctx, share_fetch_request& req,
                                     const std::vector<share::topic_partition>& parts, share_fetch_response& resp,
                                     std::vector<partition::fetch_waiters::key>& keys) {
    bool any = false;
    co_await reads_call(ctx.broker, [&] { any = read_share_partitions(ctx, req, parts, resp, keys); });
    co_return any;
}

awaitable<void> long_poll(request_context& ctx, share_fetch_request& req,
                          const std::vector<share::topic_partition>& parts, share_fetch_response& resp) {
    std::vector<partition::fetch_waiters::key> keys;
    if (co_await read_all_off_reactor(ctx, req, parts, resp, keys) || req.max_wait_ms <= 0 || keys.empty()) co_return;
    auto ex = co_await boost::asio::this_coro::executor;
    auto timer = std::make_shared<boost::asio::steady_timer>(ex);
    timer->expires_after(std::chrono::milliseconds(req.max_wait_ms));
    auto& w = ctx.broker.partitions.waiters();
    // An append may wake the request while the read below is away from the
    // reactor (the timer's cancel would then come before its wait): noted.
    auto woken = std::make_shared<std::atomic<bool>>(false);
    auto parked = w.park(keys, [timer, ex, woken] {
        woken->store(true);
        boost::asio::post(ex, [timer] { timer->cancel(); });
    });
    // Data may have come between the read and the park: look once more.
    if (co_await read_all_off_reactor(ctx, req, parts, resp, keys)) {
        w.unpark(parked, keys);
        co_return;
    }
    if (!woken->load()) {
        handler_clock* clock = handler_clock::pause_current();
        co_await timer->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        handler_clock::resume(clock);
    }
    w.unpark(parked, keys);
    co_await read_all_off_reactor(ctx, req, parts, resp, keys);
}

}  // namespace

awaitable<share_fetch_response> handle_share_fetch(request_context& ctx, share_fetch_request& req) {
    share_fetch_response resp;
    auto top = [&resp](error_code e) -> share_fetch_response& {
        resp.error_code = code(e);
        return resp;
    };
    auto* shares = ctx.broker.shares;
    if (!shares) co_return top(error_code::unsupported_version);
    if (!req.group_id || req.group_id->empty() || !req.member_id || req.member_id->empty())
        co_return top(error_code::invalid_request);
    if (!ctx.authorize(security::acl_operation::read, security::resource_type::group, *req.group_id))
        co_return top(error_code::group_authorization_failed);
    // KafkaApis.handleShareFetchRequest: a renewing request fetches nothing,
    // so it must ask for nothing (else INVALID_REQUEST, the session untouched).
    const bool renew_ack = ctx.api_version >= 2 && req.is_renew_ack;
    if (renew_ack && (req.max_bytes != 0 || req.min_bytes != 0 || req.max_records != 0 || req.max_wait_ms != 0))
        co_return top(error_code::invalid_request);
    std::vector<share::topic_partition> add, forget;
    std::vector<std::pair<share::topic_partition, error_code>> unknown;
    bool has_acks = false;
    for (auto& t : req.topics) {
        // Only partitions that exist join the session (it would otherwise
        // grow with whatever ids a client sends); the others are answered once.
        auto topic = ctx.broker.topics.find(t.topic_id);
        for (auto& p : t.partitions) {
            share::topic_partition tp{t.topic_id, p.partition_index};
            if (!topic || p.partition_index < 0 || p.partition_index >= topic->t.partition_count)
                unknown.emplace_back(tp, topic ? error_code::unknown_topic_or_partition : error_code::unknown_topic_id);
            else
                add.push_back(tp);
            has_acks |= !p.acknowledgement_batches.empty();
        }
    }
    for (auto& t : req.forgotten_topics_data)
        for (auto p : t.partitions) forget.push_back({t.topic_id, p});
    auto session = shares->fetch_session(*req.group_id, *req.member_id, req.share_session_epoch, add, forget, has_acks,
                                         ctx.conn.id);
    if (session.error != error_code::none) co_return top(session.error);
    resp.acquisition_lock_timeout_ms = int32_t(session.lock_duration_ms);
    for (auto& [tp, e] : unknown) share_fetch_row(resp, tp).error_code = code(e);
    // The acknowledgements change the state at once; their write to
    // shares.db runs while the records are read and acquired, and the answer
    // waits for it (an acknowledgement is on disk before it is answered).
    std::shared_ptr<pending_sync> written;
    share_ack_results acks;
    auto answer_acks = [&resp, &acks] {
        for (auto& [tp, e, message, hold] : acks) {
            share_fetch_row(resp, tp).acknowledge_error_code = code(e);
            share_fetch_row(resp, tp).acknowledge_error_message = message;
        }
    };
    if (has_acks) {
        // Off the reactor: an acknowledged partition's lease may be taken first (cluster mode).
        const auto* r = &req;
        acks = co_await blocking_call<share_ack_results>(ctx.broker, [shares, r, renew_ack] {
            return apply_acks(*shares, *r->group_id, *r->member_id, r->topics, renew_ack);
        });
        answer_acks();
        written = pending_sync::start(ctx.broker, *shares);
    }
    if (session.final)
        shares->close_session(*req.group_id, *req.member_id);
    else if (!renew_ack)
        co_await long_poll(ctx, req, session.partitions, resp);
    if (written) {
        co_await written->wait();
        if (confirm_acks(*shares, acks)) answer_acks();
    }
    co_return resp;
}

}  // namespace ketch::broker
