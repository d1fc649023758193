// The embedded txn store: one SQLite database, <data-dir>/txn.db (WAL,
// synchronous=FULL: a committed change is on disk when the call returns).
// One connection, used under a mutex.
//
// Schema (version 1, PRAGMA user_version); names are BLOBs:
//   txns(transactional_id BLOB PRIMARY KEY, producer_id INTEGER,
//        previous_producer_id INTEGER, producer_epoch INTEGER,
//        last_producer_epoch INTEGER, timeout_ms INTEGER, state INTEGER,
//        partitions BLOB (topic \0 partition \n ...), txn_start_ms INTEGER,
//        last_update_ms INTEGER)
//   pending_offsets(producer_id INTEGER, group_id BLOB, topic BLOB,
//        partition INTEGER, committed_offset INTEGER, leader_epoch INTEGER,
//        metadata BLOB, commit_ms INTEGER,
//        PRIMARY KEY (producer_id, group_id, topic, partition))
#pragma once

#include <filesystem>
#include <memory>

#include "meta/txn_store.h"

namespace ketch::meta {

// Opens (creating if needed) <data_dir>/txn.db.
result<std::unique_ptr<txn_store>, store_error> open_sqlite_txn_store(const std::filesystem::path& data_dir);

}  // namespace ketch::meta
