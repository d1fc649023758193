// Cluster mode's consumer groups (docs/cluster.md, "consumer groups"): the
// coordinator writes committed offsets and group rows to PostgreSQL
// (shared/pg_offset_store.h) instead of offsets.db, and when the live
// brokers change, the groups whose owner (rendezvous hashing, as
// FindCoordinator names it) becomes this broker are read again from
// PostgreSQL before FindCoordinator names this broker: their last owner's
// commits are what the group resumes from.
#pragma once

#include <memory>

#include "app/options.h"
#include "cluster/membership.h"
#include "group/coordinator.h"
#include "shared/pg_offset_store.h"

namespace ketch::app {

struct cluster_groups {
    // Null without --cluster (the schema is migrated by then: open_topics).
    static std::unique_ptr<shared::pg_offset_store> open_store(const options& opt);

    // Reloads the groups that move to `self` on each change of the live set.
    static void follow(cluster::membership& m, int32_t self, shared::pg_offset_store& store,
                       group::group_coordinator& coordinator);
};

}  // namespace ketch::app
