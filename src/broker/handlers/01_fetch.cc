// Fetch v4-18. v4: isolation_level, last_stable_offset, aborted
// transactions. v5: log_start_offset. v7: fetch sessions (KIP-227). v9:
// current_leader_epoch. v11: rack, preferred_read_replica. v12: flexible,
// diverging epochs. v13: topic ids. v15: replica_state. v16: node endpoints.
// v18: replica high watermark (ignored: consumers only).
// Behaviour: KafkaApis.handleFetchRequest, ReplicaManager.fetchMessages,
// FetchManager.newContext and FetchContext (server/.../FetchContext.java).
//
// Fetch sessions (src/fetch, docs/design/fetch_sessions.md): epoch 0 asks for
// a session (the answer carries its id when the cache has room), -1 fetches
// without one, a positive epoch continues one: the session's partitions are
// read, and the answer leaves out those with nothing new.
// Long polling (fetch_reads.h): with too few bytes, the request parks on its
// partitions (an incremental fetch: all of its session's) and is woken by the
// next append to any of them, a transaction marker included (which is what
// moves a read_committed reader's LSO), or by max_wait_ms.
// read_committed (isolation_level 1): nothing at or past the last stable
// offset, and the aborted transactions overlapping what was read.
#include <deque>
#include <unordered_map>

#include "broker/fetch_reads.h"
#include "broker/handlers/handlers.h"
#include "broker/quota_accounting.h"
#include "fetch/fetch_context.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// What the fetch asks: the request's partitions (one per partition, the
// first position kept as Kafka's LinkedHashMap does) and its forgotten ones;
// a v13+ topic id resolved to its name (empty when unknown).
fetch::context_request context_request_of(request_context& ctx, const fetch_request& req, bool follower) {
    fetch::context_request c{ctx.api_version, req.session_id, req.session_epoch, follower, {}, {}};
    const bool by_id = ctx.api_version >= 13;
    uuid last_id;  // a topic's partitions come together: one lookup per topic
    std::string last_name;
    auto key_of = [&](const std::string& name, const uuid& id, int32_t p) -> fetch::partition_key {
        if (!by_id) return {{}, name, p};
        if (id != last_id || id.is_zero()) {
            auto t = ctx.broker.topics.find(id);
            last_id = id;
            last_name = t ? t->t.name : std::string();
        }
        return {id, last_name, p};
    };
    std::unordered_map<fetch::partition_key, size_t, fetch::partition_key_hash> seen;
    for (auto& ft : req.topics) {
        for (auto& fp : ft.partitions) {
            fetch::fetch_partition p{key_of(ft.topic, ft.topic_id, fp.partition),
                                     {fp.fetch_offset, fp.log_start_offset, fp.partition_max_bytes,
                                      fp.current_leader_epoch, fp.last_fetched_epoch}};
            auto [it, fresh] = seen.emplace(p.key, c.fetch_data.size());
            if (fresh)
                c.fetch_data.push_back(std::move(p));
            else
                c.fetch_data[it->second].params = p.params;
        }
    }
    for (auto& f : req.forgotten_topics_data)
        for (int32_t p : f.partitions) c.forgotten.push_back(key_of(f.topic, f.topic_id, p));
    return c;
}

// KafkaApis.handleFetchRequest: a follower (replica id >= 0) needs
// CLUSTER_ACTION on the cluster, a consumer READ on each topic; an unknown
// topic id is UNKNOWN_TOPIC_ID first. Once per topic.
std::vector<fetch_item> items_of(request_context& ctx, std::vector<fetch::fetch_partition> parts, bool follower,
                                 std::deque<topic_access>& access) {
    const bool by_id = ctx.api_version >= 13;
    const bool follower_denied = follower && !ctx.authorize_cluster(security::acl_operation::cluster_action);
    std::unordered_map<fetch::partition_key, const topic_access*, fetch::partition_key_hash> by_topic;
    std::vector<fetch_item> items;
    items.reserve(parts.size());
    for (auto& p : parts) {
        fetch::partition_key tk{p.key.topic_id, p.key.topic, 0};
        auto [it, fresh] = by_topic.emplace(tk, nullptr);
        if (fresh) {
            const auto& name = p.key.topic;
            if (by_id && name.empty())
                it->second = &access.emplace_back(topic_access{nullptr, error_code::unknown_topic_id});
            else if (follower)
                it->second =
                    &access.emplace_back(access_topic_as_follower(ctx, follower_denied, name, p.key.topic_id, by_id));
            else
                it->second =
                    &access.emplace_back(by_id ? access_topic(ctx, security::acl_operation::read, p.key.topic_id)
                                               : access_topic(ctx, security::acl_operation::read, name));
        }
        items.push_back({std::move(p.key), p.params, it->second, {}, false});
    }
    return items;
}

// FetchResponse.matchingTopic: by id when the topic has one, else by name.
bool matches_last_topic(const fetch_response& resp, const fetch::partition_key& k) {
    if (resp.responses.empty()) return false;
    auto& last = resp.responses.back();
    return last.topic_id.is_zero() ? last.topic == k.topic : last.topic_id == k.topic_id;
}

// FetchResponse.of: the answered partitions, those read first and the
// erroneous after them, grouped into topics where consecutive ones share one.
void build_answer(fetch_response& resp, fetch::fetch_context& fc, std::vector<fetch_item>& items, bool update) {
    std::vector<fetch_item*> order;
    for (auto& it : items)
        if (!it.erroneous) order.push_back(&it);
    for (auto& it : items)
        if (it.erroneous) order.push_back(&it);
    std::vector<fetch::partition_key> keys;
    std::vector<fetch::partition_outcome> outcomes;
    for (auto* it : order) {
        keys.push_back(it->key);
        auto& o = it->out;
        outcomes.push_back({o.error_code, o.high_watermark, o.log_start_offset, o.records ? o.records->size() : 0,
                            o.preferred_read_replica >= 0, o.diverging_epoch.epoch >= 0});
    }
    auto a = fc.respond(keys, outcomes, update);
    resp.error_code = code(a.error);
    resp.session_id = a.session_id;
    for (size_t i = 0; i < order.size(); ++i) {
        if (!a.include[i]) continue;
        auto& k = order[i]->key;
        if (!matches_last_topic(resp, k)) {
            auto& tr = resp.responses.emplace_back();
            tr.topic = k.topic;
            tr.topic_id = k.topic_id;
        }
        resp.responses.back().partitions.push_back(update ? std::move(order[i]->out) : order[i]->out);
    }
}

struct fetch_run {
    fetch::fetch_context context;
    std::deque<topic_access> access;  // items point into it
    std::vector<fetch_item> items;
};

awaitable<void> run_fetch(request_context& ctx, fetch_request& req, fetch_run& run, fetch::session_cache& cache) {
    const bool follower = (ctx.api_version >= 15 ? req.replica_state.replica_id : req.replica_id) >= 0;
    run.context = fetch::new_context(cache, context_request_of(ctx, req, follower));
    if (run.context.kind() == fetch::context_kind::session_error) co_return;
    auto parts = run.context.partitions([&ctx](const uuid& id) {
        auto t = ctx.broker.topics.find(id);
        return t ? t->t.name : std::string();
    });
    run.items = items_of(ctx, std::move(parts), follower, run.access);
    co_await read_or_wait(ctx, run.items, {req.max_wait_ms, req.min_bytes, req.max_bytes, req.isolation_level == 1});
}

}  // namespace

// consumer_byte_rate (KafkaApis.handleFetchRequest): at most the quota
// window's worth of bytes per fetch; the response's size (what an incremental
// fetch would send) is recorded, and a fetch over the quota is answered with
// no partitions and the throttle time (FetchContext.getThrottledResponse; its
// bytes taken back from the rate, the session left as the request made it).
awaitable<fetch_response> handle_fetch(request_context& ctx, fetch_request& req) {
    // Without a session cache (tests' contexts), every fetch is sessionless.
    static fetch::session_cache none({.max_slots = 0, .eviction_ms = 0, .shards = 1});
    auto& cache = ctx.broker.fetch_sessions ? *ctx.broker.fetch_sessions : none;
    auto window = quota_window_bytes(ctx, security::quota_type::fetch);
    if (window) req.max_bytes = int32_t(std::min<double>(req.max_bytes, std::max(*window, 1.0)));
    fetch_run run;
    co_await run_fetch(ctx, req, run, cache);
    fetch_response resp;
    if (!window) {
        build_answer(resp, run.context, run.items, true);
        co_return resp;
    }
    build_answer(resp, run.context, run.items, false);
    kafka::writer w;
    resp.encode(w, ctx.api_version);
    double size = double(w.take().size());
    if (record_quota(ctx, security::quota_type::fetch, size) > 0) {
        unrecord_quota(ctx, security::quota_type::fetch, size);
        auto t = run.context.throttled();
        fetch_response empty;
        empty.error_code = code(t.error);
        empty.session_id = t.session_id;
        co_return empty;
    }
    resp = fetch_response{};
    build_answer(resp, run.context, run.items, true);
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
