// The PostgreSQL schema of cluster mode, as numbered migrations (docs/design/cluster.md).
// migrations()[i] takes the schema from version i to i + 1. migrate() runs the
// missing ones in one transaction under an advisory lock (brokers starting
// together migrate once), with the version in ketch_schema, so a crash
// leaves the database at its old version or the new one. A database of a
// newer version (written by a newer ketch) is refused.
#pragma once

#include <span>
#include <string_view>

#include "base/result.h"
#include "cluster/pg.h"

namespace ketch::cluster {

std::span<const char* const> migrations();

// The tables the broker reads and writes (a migration creates each).
inline constexpr std::string_view k_tables[] = {"ketch_cluster",          "ketch_brokers", "ketch_broker_endpoints",
                                                "ketch_partitions",       "ketch_objects", "ketch_batches",
                                                "ketch_producer_batches", "ketch_topics",  "ketch_topic_configs",
                                                "ketch_group_offsets",    "ketch_groups"};

// The advisory lock key of migrations: "ketch" in ASCII.
inline constexpr long long k_migration_lock = 0x6b65746368;

// Brings the schema up to date; the version it is at afterwards.
result<int, pg_error> migrate(pg_connection& c);

}  // namespace ketch::cluster
