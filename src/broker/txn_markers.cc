#include "broker/txn_markers.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "broker/partition_waiters.h"
#include "broker/partitions.h"
#include "group/coordinator.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

error_code txn_markers::write_marker(const txn::topic_partition& tp, int64_t producer_id, int16_t producer_epoch,
                                     bool commit, int32_t coordinator_epoch) {
    auto topic = b_.topics.by_name(tp.topic);
    if (!topic) return error_code::unknown_topic_or_partition;
    auto h = open_partition(b_, *topic, tp.partition);
    if (!h.ok()) return h.error();
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
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
            return error_code::none;
        }
        spdlog::warn("txn marker to {}-{}: {}", tp.topic, tp.partition, r.error().message);
        return error_code::kafka_storage_error;
    }
    // Markers are written with acks=all semantics: durable before the
    // transaction is complete.
    if (auto st = h->log->flush(); !st.ok()) return error_code::kafka_storage_error;
    b_.waiters.notify(tp.topic, tp.partition);
    return error_code::none;
}

bool txn_markers::complete_txn_offsets(int64_t producer_id, bool commit) {
    return b_.groups.complete_txn_offsets(producer_id, commit);
}

}  // namespace ketch::broker
