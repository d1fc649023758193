#include "broker/txn_markers.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include <spdlog/spdlog.h>

#include "broker/partition_waiters.h"
#include "broker/partitions.h"
#include "group/coordinator.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

namespace {

// How long one write_markers call waits for the flusher before it reports the
// markers not yet durable as failed (the coordinator retries them later,
// without holding a blocking-pool thread meanwhile).
constexpr auto k_sync_wait = std::chrono::seconds(10);

// The group-commit waits of one call; shared with the flusher's callbacks,
// which may outlive the call after a timeout.
struct sync_wait {
    std::mutex mu;
    std::condition_variable cv;
    size_t left = 0;
    std::vector<error_code> errors;
    std::vector<bool> done;
};

}  // namespace

std::vector<error_code> txn_markers::write_markers(const std::vector<txn::topic_partition>& tps, int64_t producer_id,
                                                   int16_t producer_epoch, bool commit, int32_t coordinator_epoch) {
    auto w = std::make_shared<sync_wait>();
    w->errors.assign(tps.size(), error_code::none);
    w->done.assign(tps.size(), true);
    std::vector<std::pair<size_t, std::pair<std::shared_ptr<log::partition_log>, int64_t>>> appended;
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    // First every append (page cache only), so that one flusher pass makes
    // them all durable.
    for (size_t i = 0; i < tps.size(); ++i) {
        const auto& tp = tps[i];
        auto topic = b_.topics.find(tp.topic);
        if (!topic) {
            w->errors[i] = error_code::unknown_topic_or_partition;
            continue;
        }
        auto h = open_partition(b_, *topic, tp.partition);
        if (!h.ok()) {
            w->errors[i] = h.error();
            continue;
        }
        // The log appends Kafka's control batch (MemoryRecords.withEndTransactionMarker)
        // and ends the producer's open transaction there: the LSO moves, an abort
        // goes into the aborted-transactions index.
        auto r = h->log->append_txn_marker(producer_id, producer_epoch, commit, coordinator_epoch, now);
        if (!r.ok()) {
            const auto code = r.error().code;
            if (code == log::log_errc::invalid_producer_epoch || code == log::log_errc::coordinator_fenced) {
                // A newer epoch already wrote to the partition: the log refuses a
                // marker that would end its transaction, and retrying cannot help
                // (Kafka's marker channel drops it the same way).
                spdlog::warn("txn marker to {}-{} dropped: {}", tp.topic, tp.partition, r.error().message);
                continue;
            }
            spdlog::warn("txn marker to {}-{}: {}", tp.topic, tp.partition, r.error().message);
            w->errors[i] = error_code::kafka_storage_error;
            continue;
        }
        appended.push_back({i, {h->log, r->last_offset + 1}});
    }
    // Markers are written with acks=all semantics: durable before the
    // transaction is complete. Group commit with whatever else is syncing.
    {
        std::lock_guard l(w->mu);
        w->left = appended.size();
        for (auto& a : appended) w->done[a.first] = false;
    }
    for (auto& [i, log_end] : appended) {
        log_end.first->sync_async(log_end.second, [w, i = i](log::log_status st) {
            std::lock_guard l(w->mu);
            if (!st.ok()) w->errors[i] = error_code::kafka_storage_error;
            w->done[i] = true;
            if (--w->left == 0) w->cv.notify_all();
        });
    }
    std::vector<error_code> errors;
    {
        std::unique_lock l(w->mu);
        w->cv.wait_for(l, k_sync_wait, [&] { return w->left == 0; });
        for (auto& a : appended)
            if (!w->done[a.first]) w->errors[a.first] = error_code::kafka_storage_error;
        errors = w->errors;
    }
    for (auto& a : appended)
        if (errors[a.first] == error_code::none) b_.waiters.notify(tps[a.first].topic, tps[a.first].partition);
    return errors;
}

bool txn_markers::complete_txn_offsets(int64_t producer_id, bool commit) {
    return b_.groups.complete_txn_offsets(producer_id, commit);
}

}  // namespace ketch::broker
