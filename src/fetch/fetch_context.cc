#include "fetch/fetch_context.h"

#include <unordered_map>

namespace ketch::fetch {

namespace {

void count(std::atomic<uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

fetch_context new_context(session_cache& cache, context_request req) {
    auto& n = cache.counters();
    fetch_context c;
    c.cache_ = &cache;
    const int32_t id = req.session_id;
    if (req.epoch == k_initial_epoch || req.epoch == k_final_epoch) {
        count(n.full);
        if (id != k_invalid_session_id) {  // any session a full fetch names is closed
            if (auto* sh = cache.shard_of(id)) {
                lock_guard l(sh->mu);
                sh->remove(id);
            }
        }
        c.kind_ = req.epoch == k_final_epoch ? context_kind::sessionless : context_kind::full;
        c.req_ = std::move(req);
        return c;
    }
    auto refuse = [&](error_code e, std::atomic<uint64_t>& counter) {
        count(counter);
        c.kind_ = context_kind::session_error;
        c.error_ = e;
        return c;
    };
    auto* sh = cache.shard_of(id);
    if (!sh) return refuse(error_code::fetch_session_id_not_found, n.id_not_found);
    lock_guard l(sh->mu);
    auto s = sh->get(id);
    if (!s) return refuse(error_code::fetch_session_id_not_found, n.id_not_found);
    if (s->epoch() != req.epoch) return refuse(error_code::invalid_fetch_session_epoch, n.bad_epoch);
    if (s->uses_topic_ids() != (req.version >= 13))
        return refuse(error_code::fetch_session_topic_id_error, n.topic_id_error);
    s->update(req.fetch_data, req.forgotten);
    if (s->empty()) {  // nothing left: the session ends, the fetch is sessionless
        sh->remove(*s);
        c.kind_ = context_kind::sessionless;
        c.req_ = std::move(req);
        return c;
    }
    sh->touch(*s, cache.now_ms());
    s->set_epoch(next_epoch(s->epoch()));
    count(n.incremental);
    c.kind_ = context_kind::incremental;
    c.shard_ = sh;
    c.session_ = std::move(s);
    c.req_ = std::move(req);
    return c;
}

int32_t fetch_context::session_id() const { return session_ ? session_->id() : k_invalid_session_id; }

std::vector<fetch_partition> fetch_context::partitions(const std::function<std::string(const uuid&)>& name_of) {
    switch (kind_) {
        case context_kind::session_error: return {};
        case context_kind::incremental: {
            lock_guard l(shard_->mu);
            return session_->partitions(name_of);
        }
        default: return req_.fetch_data;
    }
}

context_answer fetch_context::respond(const std::vector<partition_key>& keys,
                                      const std::vector<partition_outcome>& outcomes, bool update) {
    context_answer a;
    if (kind_ == context_kind::session_error) {
        a.error = error_;
        a.include.assign(keys.size(), false);
        return a;
    }
    a.include.assign(keys.size(), true);
    if (kind_ == context_kind::sessionless) return a;
    if (kind_ == context_kind::full) {
        if (!update) return a;
        std::unordered_map<partition_key, const partition_params*, partition_key_hash> asked;
        for (auto& p : req_.fetch_data) asked.emplace(p.key, &p.params);
        std::vector<cached_partition> parts;
        parts.reserve(keys.size());
        for (size_t i = 0; i < keys.size(); ++i) {
            auto it = asked.find(keys[i]);
            parts.push_back({keys[i], it == asked.end() ? partition_params{} : *it->second, outcomes[i].high_watermark,
                             outcomes[i].log_start_offset});
        }
        auto& sh = cache_->next_shard();
        lock_guard l(sh.mu);
        a.session_id = sh.maybe_create(cache_->now_ms(), req_.follower, req_.version >= 13, std::move(parts));
        if (a.session_id != k_invalid_session_id) count(cache_->counters().created);
        return a;
    }
    // Incremental: the session's epoch must still be the one this request moved it to.
    lock_guard l(shard_->mu);
    a.session_id = session_->id();
    if (session_->epoch() != next_epoch(req_.epoch)) {
        a.error = error_code::invalid_fetch_session_epoch;
        a.include.assign(keys.size(), false);
        return a;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
        auto* cp = session_->find(keys[i]);
        a.include[i] = cp && cp->must_respond(outcomes[i], update);
        if (a.include[i] && update && outcomes[i].records_bytes > 0) session_->move_to_end(keys[i]);
    }
    return a;
}

context_answer fetch_context::throttled() {
    context_answer a;
    if (kind_ != context_kind::incremental) return a;
    lock_guard l(shard_->mu);
    a.session_id = session_->id();
    if (session_->epoch() != next_epoch(req_.epoch)) a.error = error_code::invalid_fetch_session_epoch;
    return a;
}

}  // namespace ketch::fetch
