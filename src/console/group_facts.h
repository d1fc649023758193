// A consumer group's committed offsets and lag (OffsetFetch + ListOffsets),
// shared by the group list, the group page and the offset reset.
#pragma once

#include <map>
#include <string>

#include "console/context.h"

namespace ketch::console {

struct partition_lag {
    int64_t committed = -1;
    int64_t end = -1;  // high watermark
    int64_t lag = 0;   // end - committed (0 when nothing is committed)
    std::string metadata;
};

using group_offsets = std::map<std::string, std::map<int32_t, partition_lag>>;  // topic -> partition -> lag

// Every committed offset of the group, with the partitions' ends.
group_offsets fetch_group_offsets(const context& ctx, const std::string& principal, const std::string& group);

int64_t total_lag(const group_offsets& g);

}  // namespace ketch::console
