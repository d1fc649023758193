// The write side of the partition service: produce appends, the durability
// wait, transaction markers.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <tuple>

#include <spdlog/spdlog.h>

#include "partition/errors.h"
#include "partition/service.h"
#include "partition/settings.h"
#include "record/recompress.h"

namespace ketch::partition {

namespace {

// The answer for one partition from the log's (or the shared engine's
// commit's) result. Producer-state refusals carry the log start offset
// (ReplicaManager appendToLocalLog: the generic branch); storage errors do not.
void take_result(append_outcome& out, const log::log_result<log::append_result>& r, storage& store) {
    if (!r.ok()) {
        out.error = append_error(r.error().code);
        if (producer_state_error(r.error().code) != error_code::none) out.log_start_offset = store.log_start_offset();
        return;
    }
    out.base_offset = r->base_offset;
    out.log_append_time = r->log_append_time;
    out.log_start_offset = r->log_start_offset;
    out.end_offset = r->last_offset + 1;
}

}  // namespace

append_outcome service::append(const meta::resolved_topic& topic, int32_t partition, byte_view records,
                               bool allow_zstd) {
    append_outcome out;
    auto part = open(topic, partition);
    if (!part.ok()) {
        out.error = part.error();
        return out;
    }
    storage& store = *part->store;
    const meta::log_settings& s = part->settings;
    std::string tp = topic.t.name + "-" + std::to_string(partition);
    const auto limits = to_validation_limits(s, now_ms(), allow_zstd, tp);

    auto info = record::validate_produce_batch(records, limits);
    if (!info.ok()) {
        auto& e = info.error();
        out.error = e.code;
        if (e.message_in_response) out.error_message = std::move(e.message);
        out.record_errors = std::move(e.record_errors);
        if (e.log_stage) out.log_start_offset = store.log_start_offset();
        return out;
    }
    byte_view batch = records.first(info->size_in_bytes);
    bytes rebuilt;
    if (auto target = target_codec(s); target && *target != info->codec) {
        // compression.type names another codec: LogValidator rebuilds the batch.
        auto r = record::recompress_batch(batch, *target, codec_level(s, *target));
        if (!r.ok()) {
            out.error = error_code::unknown_server_error;
            return out;
        }
        rebuilt = std::move(*r);
        batch = rebuilt;
        if (int64_t(batch.size()) > s.max_message_bytes) {  // UnifiedLog.append: the size may have changed
            out.error = error_code::message_too_large;
            out.log_start_offset = store.log_start_offset();
            return out;
        }
    }
    log::append_options opts;
    opts.timestamp_type = limits.topic_timestamp_type;
    opts.now_ms = limits.now_ms;
    opts.leader_epoch = k_leader_epoch;
    auto r = store.append(batch, opts);
    if (r.ok() && r->pending) {  // a shared engine: offsets (and the wake-up) come with its commit
        out.pending = r->pending;
        out.store = std::move(part->store);
        return out;
    }
    // A duplicate (a retried batch) is answered with its original offsets,
    // no error, nothing appended (UnifiedLog.append returns the duplicate's
    // LogAppendInfo, whose log append time is the original's max timestamp).
    take_result(out, r, store);
    if (!r.ok()) return out;
    if (!r->duplicate) accounts_.add(store, topic.t.name, int64_t(batch.size()));  // the log grows by the batch
    out.store = std::move(part->store);
    if (!r->duplicate) waiters_.notify(topic.t.name, partition);
    return out;
}

namespace {

// Collects one result per wait, whichever thread each comes on, and hands
// them all to `done` (outside the lock) once the last has come.
template <class T>
class fan_in {
public:
    fan_in(size_t n, std::function<void(std::vector<T>)> done) : left_(n), results_(n), done_(std::move(done)) {}
    void set(size_t i, T value) {
        std::unique_lock lock(mu_);
        results_[i] = std::move(value);
        if (--left_ != 0) return;
        auto all = std::move(results_);
        lock.unlock();
        done_(std::move(all));
    }

private:
    std::mutex mu_;
    size_t left_;
    std::vector<T> results_;
    std::function<void(std::vector<T>)> done_;
};

}  // namespace

void service::wait_durable(const std::vector<durable_wait>& waits, std::function<void(std::vector<bool>)> done) {
    if (waits.empty()) {
        done({});
        return;
    }
    auto st = std::make_shared<fan_in<bool>>(waits.size(), std::move(done));
    for (size_t i = 0; i < waits.size(); ++i)
        waits[i].store->wait_durable(waits[i].end_offset, [st, i](log::log_status s) { st->set(i, !s.ok()); });
}

void service::wait_commits(const std::vector<commit_wait>& waits,
                           std::function<void(std::vector<append_outcome>)> done) {
    if (waits.empty()) {
        done({});
        return;
    }
    auto st = std::make_shared<fan_in<append_outcome>>(waits.size(), std::move(done));
    for (size_t i = 0; i < waits.size(); ++i) {
        auto store = waits[i].store;
        store->wait_commit(waits[i].pending, [st, i, store](log::log_result<log::append_result> r) {
            append_outcome o;
            take_result(o, r, *store);
            st->set(i, std::move(o));
        });
    }
}

namespace {

// The durability waits of one write_txn_markers call; shared with the
// callbacks, which may outlive the call after a timeout.
struct marker_wait {
    std::mutex mu;
    std::condition_variable cv;
    size_t left = 0;
    std::vector<error_code> errors;
    std::vector<bool> done;
};

// A marker appended: its durability (the local log) or its commit (the
// shared log, whose offsets come at the commit) ends the wait for it. A
// commit refused for a newer producer epoch is dropped, as the append's refusal.
void wait_marker(const std::shared_ptr<marker_wait>& w, size_t i, const durable_wait& wait, uint64_t pending) {
    auto finish = [w, i](bool ok) {
        std::lock_guard l(w->mu);
        if (!ok) w->errors[i] = error_code::kafka_storage_error;
        w->done[i] = true;
        if (--w->left == 0) w->cv.notify_all();
    };
    if (pending != 0) {
        wait.store->wait_commit(pending, [finish](log::log_result<log::append_result> r) {
            // Refused as stale (a newer epoch or coordinator wrote there): dropped, as below.
            finish(r.ok() || r.error().code == log::log_errc::invalid_producer_epoch ||
                   r.error().code == log::log_errc::coordinator_fenced);
        });
        return;
    }
    wait.store->wait_durable(wait.end_offset, [finish](log::log_status st) { finish(st.ok()); });
}

}  // namespace

std::vector<error_code> service::write_txn_markers(const std::vector<txn::topic_partition>& tps, int64_t producer_id,
                                                   int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                                                   std::chrono::milliseconds timeout) {
    auto w = std::make_shared<marker_wait>();
    w->errors.assign(tps.size(), error_code::none);
    w->done.assign(tps.size(), true);
    std::vector<std::tuple<size_t, durable_wait, uint64_t>> appended;
    const int64_t now = now_ms();
    // First every append (page cache only), so that one flusher pass makes
    // them all durable.
    for (size_t i = 0; i < tps.size(); ++i) {
        const auto& tp = tps[i];
        auto topic = topics_.find(tp.topic);
        if (!topic) {
            w->errors[i] = error_code::unknown_topic_or_partition;
            continue;
        }
        auto h = open(*topic, tp.partition);
        if (!h.ok()) {
            w->errors[i] = h.error();
            continue;
        }
        // Kafka's control batch (MemoryRecords.withEndTransactionMarker); the
        // producer's open transaction ends there: the LSO moves, an abort
        // goes into the aborted-transactions index.
        const int64_t before = accounts_.enabled() ? int64_t(h->store->size_bytes()) : 0;
        auto r = h->store->append_txn_marker(producer_id, producer_epoch, commit, coordinator_epoch, now);
        if (r.ok() && accounts_.enabled()) accounts_.add(*h->store, tp.topic, int64_t(h->store->size_bytes()) - before);
        if (!r.ok()) {
            const auto code = r.error().code;
            if (code == log::log_errc::invalid_producer_epoch || code == log::log_errc::coordinator_fenced) {
                // A newer epoch already wrote to the partition: retrying cannot
                // help (Kafka's marker channel drops it the same way).
                spdlog::warn("txn marker to {}-{} dropped: {}", tp.topic, tp.partition, r.error().message);
                continue;
            }
            spdlog::warn("txn marker to {}-{}: {}", tp.topic, tp.partition, r.error().message);
            w->errors[i] = error_code::kafka_storage_error;
            continue;
        }
        appended.push_back({i, {h->store, r->last_offset + 1}, r->pending});
    }
    // Markers are written with acks=all semantics: durable before the
    // transaction is complete. Group commit with whatever else is syncing.
    {
        std::lock_guard l(w->mu);
        w->left = appended.size();
        for (auto& a : appended) w->done[std::get<0>(a)] = false;
    }
    for (auto& [i, wait, pending] : appended) wait_marker(w, i, wait, pending);
    std::vector<error_code> errors;
    {
        std::unique_lock l(w->mu);
        w->cv.wait_for(l, timeout, [&] { return w->left == 0; });
        for (auto& a : appended)
            if (!w->done[std::get<0>(a)]) w->errors[std::get<0>(a)] = error_code::kafka_storage_error;
        errors = w->errors;
    }
    for (auto& a : appended)
        if (const size_t i = std::get<0>(a); errors[i] == error_code::none)
            waiters_.notify(tps[i].topic, tps[i].partition);
    return errors;
}

}  // namespace ketch::partition
