// One streams-group member's reconciliation towards its target assignment
// (Kafka 4.3.1's streams CurrentAssignmentBuilder): tasks the member must
// give up are revoked first — the member keeps its epoch, in
// UNREVOKED_TASKS, until a heartbeat reports it no longer owns them — and
// only then does it get its new tasks and the target's epoch. A new active
// task still owned by another member, or a standby/warm-up task still active
// in the member's own process, waits (UNRELEASED_TASKS).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "group/streams_group.h"

namespace ketch::group {

// What the member reported owning (null fields: unchanged since its last
// heartbeat).
struct owned_tasks {
    std::optional<task_set> active, standby, warmup;
    bool known() const { return active && standby && warmup; }
};

streams_member reconcile_streams_member(const streams_group& g, const streams_member& m, int32_t target_epoch,
                                        const tasks_tuple& target, const owned_tasks& owned);

// Whether a reported task set is known (not null) and each of its tasks is in `allowed`.
bool within(const std::optional<task_set>& owned, const task_set& allowed);

// Whether every owned task is in `assigned` (areOwnedTasksContainedInAssignedTasks).
bool owned_within(const owned_tasks& owned, const tasks_tuple& assigned);

}  // namespace ketch::group
