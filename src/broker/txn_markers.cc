#include "broker/txn_markers.h"

#include <chrono>

#include "group/coordinator.h"
#include "partition/service.h"

namespace ketch::broker {

namespace {

// How long one write_markers call waits for the flusher before it reports the
// markers not yet durable as failed (the coordinator retries them later,
// without holding a blocking-pool thread meanwhile).
constexpr auto k_sync_wait = std::chrono::seconds(10);

}  // namespace

std::vector<error_code> txn_markers::write_markers(const std::vector<txn::topic_partition>& tps, int64_t producer_id,
                                                   int16_t producer_epoch, bool commit, int32_t coordinator_epoch) {
    return b_.partitions.write_txn_markers(tps, producer_id, producer_epoch, commit, coordinator_epoch, k_sync_wait);
}

bool txn_markers::complete_txn_offsets(int64_t producer_id, bool commit) {
    if (shared_) {
        if (!shared_(producer_id, commit)) return false;
        (void)b_.groups.complete_txn_offsets(producer_id, commit);
        return true;
    }
    return b_.groups.complete_txn_offsets(producer_id, commit);
}

}  // namespace ketch::broker
