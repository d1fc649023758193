// The columns of a committed offset as offsets.db (offsets) and txn.db
// (pending_offsets) both store them, in this order: group_id, topic,
// partition, committed_offset, leader_epoch, metadata, commit_ms.
#pragma once

#include "meta/offset_store.h"
#include "meta/sqlite_db.h"

namespace ketch::meta::sqlite {

inline constexpr int k_offset_columns = 7;

// The offset in the row's columns first .. first + 6 (expire_ms is not one).
inline stored_offset offset_at(statement& q, int first) {
    stored_offset o;
    o.group = q.blob_at(first);
    o.topic = q.blob_at(first + 1);
    o.partition = int32_t(q.int_at(first + 2));
    o.offset = q.int_at(first + 3);
    o.leader_epoch = int32_t(q.int_at(first + 4));
    o.metadata = q.blob_at(first + 5);
    o.commit_timestamp_ms = q.int_at(first + 6);
    return o;
}

// Binds the offset to parameters first .. first + 6 (1-based).
inline void bind_offset(statement& q, int first, const stored_offset& o) {
    q.bind(first, o.group);
    q.bind(first + 1, o.topic);
    q.bind(first + 2, int64_t(o.partition));
    q.bind(first + 3, o.offset);
    q.bind(first + 4, int64_t(o.leader_epoch));
    q.bind(first + 5, o.metadata);
    q.bind(first + 6, o.commit_timestamp_ms);
}

}  // namespace ketch::meta::sqlite
