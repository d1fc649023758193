// Fetch v4-18. v4: isolation_level, last_stable_offset, aborted
// transactions. v5: log_start_offset. v7: fetch sessions (KIP-227). v9:
// current_leader_epoch. v11: rack, preferred_read_replica. v12: flexible,
// diverging epochs. v13: topic ids. v15: replica_state. v16: node endpoints.
// v18: replica high watermark (ignored: consumers only).
// Behaviour: KafkaApis.handleFetchRequest, ReplicaManager.fetchMessages.
//
// Fetch sessions: ketch answers every fetch as sessionless (session_id 0),
// which KIP-227 allows a broker to do; clients then send full fetches. An
// incremental fetch for a session ketch never created is refused with
// FETCH_SESSION_ID_NOT_FOUND, as Kafka refuses an unknown session.
// Long polling: with too few bytes, the request parks on its partitions and
// is woken by the next append to any of them, a transaction marker included
// (which is what moves a read_committed reader's LSO), or by max_wait_ms.
// read_committed (isolation_level 1): nothing at or past the last stable
// offset, and the aborted transactions overlapping what was read.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/handlers/handlers.h"
#include "broker/handler_clock.h"
#include "broker/partition_requests.h"
#include "broker/quota_accounting.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using partition_data = fetch_response::partition_data;

struct fetch_target {
    const topic_access* topic;
    fetch_request::fetch_partition* req;
    partition_data* out;
};

// Reads every partition into `targets[i].out`, honouring max_bytes across
// the response (the first partition with data may exceed it, as Kafka's
// minOneMessage does). Returns the bytes read.
uint64_t read_all(request_context& ctx, std::vector<fetch_target>& targets, int32_t max_bytes, bool read_committed) {
    uint64_t total = 0;
    uint64_t budget = uint64_t(std::max(max_bytes, 0));
    for (auto& tg : targets) {
        auto& out = *tg.out;
        out = partition_data{};
        out.partition_index = tg.req->partition;
        out.high_watermark = -1;
        out.last_stable_offset = -1;
        out.log_start_offset = -1;
        // Kafka: an error partition carries empty records and an empty aborted
        // list; a read_uncommitted answer with data a null aborted list (recorded).
        out.records = records{};
        out.aborted_transactions.emplace();
        auto part = open_partition(ctx, *tg.topic, tg.req->partition);
        if (!part.ok()) {
            out.error_code = code(part.error());
            continue;
        }
        if (auto e = partition::service::check_leader_epoch(tg.req->current_leader_epoch); e != error_code::none) {
            out.error_code = code(e);
            continue;
        }
        uint64_t limit = std::min<uint64_t>(uint64_t(std::max(tg.req->partition_max_bytes, 0)), budget);
        log::read_options ro;
        ro.min_one_batch = total == 0;
        ro.read_committed = read_committed;
        auto r = ctx.broker.partitions.read(*part, tg.req->fetch_offset, limit, ro);
        // Past this point Kafka's answer comes from the log read: a
        // read_uncommitted partition carries a null aborted list, errors too.
        if (!read_committed) out.aborted_transactions.reset();
        if (!r.ok()) {
            out.error_code = code(r.error());
            continue;
        }
        out.high_watermark = r->high_watermark;
        out.last_stable_offset = r->last_stable_offset;
        if (read_committed && r->aborted) {
            for (const auto& t : *r->aborted) out.aborted_transactions->push_back({t.producer_id, t.first_offset, {}});
        }
        out.log_start_offset = r->log_start_offset;
        records recs;
        bool zero_copy = ctx.conn.sendfile_ok;
        for (auto& s : r->slices) zero_copy &= s.file->native_handle() >= 0;
        if (zero_copy) {
            for (auto& s : r->slices) recs.chunks.push_back({s.file->native_handle(), int64_t(s.position), s.length, s.file});
        } else {
            // Not a plain file (tests' in-memory fs) or not a plaintext socket: copy.
            auto copy = log::read_bytes(*r);
            if (!copy.ok()) throw std::runtime_error("reading the log: " + copy.error().message);
            recs.data = shared_bytes(std::move(*copy));
        }
        total += r->total_bytes;
        budget = budget > r->total_bytes ? budget - r->total_bytes : 0;
        out.records = std::move(recs);
    }
    return total;
}

awaitable<fetch_response> fetch_unthrottled(request_context& ctx, fetch_request& req) {
    auto& b = ctx.broker;
    fetch_response resp;
    if (req.session_id != 0 && req.session_epoch > 0) {
        resp.error_code = code(error_code::fetch_session_id_not_found);
        co_return resp;
    }
    const bool by_id = ctx.api_version >= 13;
    const bool read_committed = req.isolation_level == 1;
    // KafkaApis.handleFetchRequest: a follower (replica id >= 0) needs
    // CLUSTER_ACTION on the cluster, a consumer READ on each topic.
    const bool follower = (ctx.api_version >= 15 ? req.replica_state.replica_id : req.replica_id) >= 0;
    const bool follower_denied = follower && !ctx.authorize_cluster(security::acl_operation::cluster_action);

    std::vector<fetch_target> targets;
    std::vector<partition::fetch_waiters::key> keys;
    std::vector<topic_access> access;
    access.reserve(req.topics.size());  // targets point into it
    resp.responses.reserve(req.topics.size());
    for (auto& ft : req.topics) {
        auto& tr = resp.responses.emplace_back();
        tr.topic = ft.topic;
        tr.topic_id = ft.topic_id;
        // KafkaApis.handleFetchRequest: an unknown topic id first, then READ on the topic.
        auto& acc = access.emplace_back(
            follower ? access_topic_as_follower(ctx, follower_denied, ft.topic, ft.topic_id, by_id)
            : by_id  ? access_topic(ctx, security::acl_operation::read, ft.topic_id)
                     : access_topic(ctx, security::acl_operation::read, ft.topic));
        tr.partitions.resize(ft.partitions.size());
        for (size_t i = 0; i < ft.partitions.size(); ++i) {
            targets.push_back({&acc, &ft.partitions[i], &tr.partitions[i]});
            if (acc.topic) keys.emplace_back(acc.topic->t.name, ft.partitions[i].partition);
        }
    }

    uint64_t got = read_all(ctx, targets, req.max_bytes, read_committed);
    bool any_error = false;
    for (auto& tg : targets) any_error |= tg.out->error_code != 0;
    if (got >= uint64_t(std::max(req.min_bytes, 1)) || req.max_wait_ms <= 0 || any_error || keys.empty())
        co_return resp;

    // Long poll: wait for an append to one of our partitions, or the deadline.
    auto ex = co_await boost::asio::this_coro::executor;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(req.max_wait_ms);
    // Shared: a wake-up posted by an appender may run after this coroutine ends.
    auto timer = std::make_shared<boost::asio::steady_timer>(ex);
    while (got < uint64_t(std::max(req.min_bytes, 1))) {
        timer->expires_at(deadline);
        auto w = b.partitions.waiters().park(keys, [timer, ex] { boost::asio::post(ex, [timer] { timer->cancel(); }); });
        // Data may have arrived between the read and the park: look once more.
        got = read_all(ctx, targets, req.max_bytes, read_committed);
        if (got >= uint64_t(std::max(req.min_bytes, 1))) {
            b.partitions.waiters().unpark(w, keys);
            break;
        }
        handler_clock* clock = handler_clock::pause_current();  // waiting costs no request quota
        auto [ec] = co_await timer->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        handler_clock::resume(clock);
        b.partitions.waiters().unpark(w, keys);
        got = read_all(ctx, targets, req.max_bytes, read_committed);
        if (!ec) break;  // deadline
    }
    co_return resp;
}

}  // namespace

// consumer_byte_rate (KafkaApis.handleFetchRequest): at most the quota
// window's worth of bytes per fetch; the response's size is recorded, and a
// fetch over the quota is answered empty with the throttle time (its bytes
// taken back from the rate).
awaitable<fetch_response> handle_fetch(request_context& ctx, fetch_request& req) {
    auto window = quota_window_bytes(ctx, security::quota_type::fetch);
    if (!window) co_return co_await fetch_unthrottled(ctx, req);
    req.max_bytes = int32_t(std::min<double>(req.max_bytes, std::max(*window, 1.0)));
    fetch_response resp = co_await fetch_unthrottled(ctx, req);
    kafka::writer w;
    resp.encode(w, ctx.api_version);
    double size = double(w.take().size());
    if (record_quota(ctx, security::quota_type::fetch, size) > 0) {
        unrecord_quota(ctx, security::quota_type::fetch, size);
        fetch_response empty;  // FetchContext.getThrottledResponse: NONE, no partitions
        co_return empty;
    }
    co_return resp;
}

// FetchRequest.getErrorResponse: the top-level error and every partition with
// it, no records.
std::optional<fetch_response> fetch_error(const fetch_request& req, int16_t, const error_answer& e) {
    fetch_response resp;
    resp.error_code = e.code;
    for (auto& t : req.topics) {
        auto& rt = resp.responses.emplace_back();
        rt.topic = t.topic;
        rt.topic_id = t.topic_id;
        for (auto& p : t.partitions) {
            auto& rp = error_row(rt.partitions, e);
            rp.partition_index = p.partition;
            rp.high_watermark = -1;
            rp.records = records{};
        }
    }
    return resp;
}

}  // namespace ketch::broker
