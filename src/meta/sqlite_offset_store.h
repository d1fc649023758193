// The embedded offset store: one SQLite database, <data-dir>/offsets.db,
// separate from meta.db so that the two schemas version independently. WAL
// journal with synchronous=FULL: a committed transaction is on disk when the
// call returns. One connection, used under a mutex.
//
// Schema (version 2, PRAGMA user_version; the migrations in sqlite_offset_store.cc). Names are BLOBs: Kafka strings may
// hold any bytes, and BLOB keys compare byte for byte.
//   offsets(group_id BLOB, topic BLOB, partition INTEGER, committed_offset INTEGER,
//           leader_epoch INTEGER, metadata BLOB, commit_ms INTEGER, expire_ms INTEGER NULL,
//           PRIMARY KEY (group_id, topic, partition))
//   groups(group_id BLOB PRIMARY KEY, protocol_type BLOB, generation INTEGER,
//          empty_since_ms INTEGER NULL, state BLOB)  -- state: version 2
#pragma once

#include <filesystem>
#include <memory>

#include "meta/offset_store.h"

namespace ketch::meta {

// Opens (creating if needed) <data_dir>/offsets.db, creating data_dir if
// missing; fails if the file is not an offsets database or is newer.
result<std::unique_ptr<offset_store>, store_error> open_sqlite_offset_store(const std::filesystem::path& data_dir);

}  // namespace ketch::meta
