// Reconciliation of one member towards its target assignment: Kafka's
// CurrentAssignmentBuilder (modern/consumer/CurrentAssignmentBuilder.java,
// 4.3.1). Revocation comes before assignment: a partition the member must
// give up is withheld from its assignment (pending revocation) and the member
// stays at its epoch until it reports it no longer owns it; a partition of
// its target still owned by another member is given only once released.
#pragma once

#include <functional>
#include <optional>
#include <set>

#include "group/consumer_group.h"

namespace ketch::group {

// The epoch of the member owning (topic, partition), -1 if none.
using partition_epoch_fn = std::function<int32_t(const uuid&, int32_t)>;

// The member's next state. `owned` is what the member reported owning in
// this heartbeat (nullopt: not reported, so a revocation is not acknowledged);
// `subscribed` the ids of the topics it subscribes to (its target on other
// topics is treated as empty).
consumer_member reconcile(const consumer_member& m, int32_t target_epoch, const topic_partitions& target,
                          const partition_epoch_fn& partition_epoch, const std::optional<topic_partitions>& owned,
                          const std::set<uuid>& subscribed);

}  // namespace ketch::group
