// ShareFetch's read of one share-partition for a member: ask the share
// coordinator where to read (creating the share-partition's state at
// share.auto.offset.reset), read whole batches through the partition
// service as Fetch does, and acquire what the batches hold.
#pragma once

#include <string>
#include <vector>

#include "base/error_code.h"
#include "broker/request_context.h"
#include "protocol/records.h"
#include "share/coordinator.h"

namespace ketch::broker {

struct share_read {
    error_code error = error_code::none;
    std::string topic;  // the topic's name once found (for parking a long poll)
    kafka::records recs;
    std::vector<share::acquired_range> acquired;
    uint64_t bytes = 0;
};

// batch_optimized: ShareAcquireMode 0 (v1 always), new records taken to the
// end of the batch holding the max_records-th (share/partition_state.h).
share_read read_share_partition(request_context& ctx, const std::string& group, const std::string& member,
                                const share::topic_partition& tp, uint64_t max_bytes, int32_t max_records,
                                bool batch_optimized = false);

}  // namespace ketch::broker
