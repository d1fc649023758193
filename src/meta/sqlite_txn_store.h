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
#include <mutex>

#include "meta/sqlite_db.h"
#include "meta/txn_store.h"

namespace ketch::meta {

class sqlite_txn_store final : public txn_store, public sqlite::file_store<sqlite_txn_store> {
public:
    static constexpr const char* file_name = "txn.db";
    static const std::span<const char* const> migrations;

    ~sqlite_txn_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<stored_txn>, store_error> load_txns() override;
    status<store_error> put_txn(const stored_txn& t) override;
    status<store_error> delete_txn(const std::string& transactional_id) override;
    result<std::vector<pending_txn_offset>, store_error> load_pending_offsets() override;
    status<store_error> put_pending_offsets(std::span<const pending_txn_offset> offsets) override;
    status<store_error> delete_pending_offsets(int64_t producer_id) override;

private:
    using file_store::file_store;
};

}  // namespace ketch::meta
