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
#include <mutex>

#include "meta/offset_store.h"
#include "meta/sqlite_db.h"

namespace ketch::meta {

class sqlite_offset_store final : public offset_store, public sqlite::file_store<sqlite_offset_store> {
public:
    static constexpr const char* file_name = "offsets.db";
    static const std::span<const char* const> migrations;

    // open(data_dir) opens (creating if needed) <data_dir>/offsets.db, creating
    // data_dir if missing; it fails if the file is not an offsets database or is newer.
    ~sqlite_offset_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<stored_offset>, store_error> load_offsets() override;
    result<std::vector<stored_group>, store_error> load_groups() override;
    status<store_error> commit_offsets(std::span<const stored_offset> offsets) override;
    status<store_error> delete_offsets(const std::string& group, std::span<const offset_key> keys) override;
    status<store_error> delete_groups(std::span<const std::string> groups) override;
    status<store_error> put_group(const stored_group& g) override;

private:
    using file_store::file_store;
};

}  // namespace ketch::meta
