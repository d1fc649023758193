// A group's committed offsets (OffsetFetch) and committing new ones
// (OffsetCommit from outside the group: generation -1, no member, which Kafka
// accepts while the group has no active members).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/client.h"

namespace ketch::cli {

using topic_partition = std::pair<std::string, int32_t>;

// nullopt `only`: every partition the group has offsets for.
std::map<topic_partition, int64_t> fetch_committed(client& c, const std::string& group,
                                                   const std::optional<std::vector<topic_partition>>& only);

// Outside the group by default (generation -1, no member id), or as a member.
void commit_offsets(client& c, const std::string& group, const std::map<topic_partition, int64_t>& offsets,
                    int32_t generation = -1, const std::string& member_id = {});

}  // namespace ketch::cli
