// The statement parameters the catalogue and the flush commit build alike.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "cluster/catalogue.h"

namespace ketch::cluster {

// A number as a statement parameter (text).
inline std::string str(int64_t v) { return std::to_string(v); }

// A partition's key columns: its topic id and partition number.
inline pg_params key(const partition_key& tp) { return {tp.topic_id, std::to_string(tp.partition)}; }

// `p` followed by `more`.
inline pg_params with(pg_params p, std::initializer_list<std::optional<std::string>> more) {
    p.insert(p.end(), more);
    return p;
}

// A CTE of a statement that drops index rows into a CTE `gone` (RETURNING
// their byte_length), $1 $2 the partition: their bytes taken from the
// partition's ketch_partitions.stored_bytes (migration 18), in the same
// statement; the row is not written when none was dropped.
inline constexpr const char* k_freed =
    "freed AS (UPDATE ketch_partitions SET stored_bytes = stored_bytes - (SELECT sum(byte_length::bigint) FROM "
    "gone) WHERE topic_id = $1 AND partition = $2 AND EXISTS (SELECT 1 FROM gone))";

}  // namespace ketch::cluster
