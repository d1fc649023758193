// A consumer group's committed offsets and lag (OffsetFetch + ListOffsets),
// and the listed groups (ListGroups), shared by the group list, the group
// page and the offset reset. In cluster mode each group is answered by its
// coordinator (console/cluster_view.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "console/cluster_view.h"
#include "protocol/messages/list_groups.h"

namespace ketch::console {

struct partition_lag {
    int64_t committed = -1;
    int64_t end = -1;  // high watermark
    int64_t lag = 0;   // end - committed (0 when nothing is committed)
    std::string metadata;
};

using group_offsets = std::map<std::string, std::map<int32_t, partition_lag>>;  // topic -> partition -> lag

// Every committed offset of the group, with the partitions' ends.
group_offsets fetch_group_offsets(cluster_view& view, const std::string& group);

int64_t total_lag(const group_offsets& g);

using listed_group = kafka::list_groups_response::listed_group;

// `group` as its coordinator lists it; nullopt when it is not a live group.
// 503 when its coordinator is another broker that was not reached.
std::optional<listed_group> find_listed_group(cluster_view& view, const std::string& group);

// Every group of the cluster by id: this broker's (as the principal may see
// them), then those the other live brokers list that this one does not
// (second: true). A broker not reached is recorded in `view`.
std::vector<std::pair<listed_group, bool>> list_cluster_groups(cluster_view& view);

}  // namespace ketch::console
