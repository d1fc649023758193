// The embedded share store: <data-dir>/shares.db (meta/share_store.h). WAL
// journal, synchronous=FULL, one connection under a mutex.
//
// Schema (version 1, PRAGMA user_version; the migrations in sqlite_share_store.cc):
//   share_partitions(group_id BLOB, topic_id BLOB, partition INTEGER, start_offset INTEGER,
//                    PRIMARY KEY (group_id, topic_id, partition))
//   share_batches(group_id BLOB, topic_id BLOB, partition INTEGER, first_offset INTEGER,
//                 last_offset INTEGER, state INTEGER, delivery_count INTEGER,
//                 PRIMARY KEY (group_id, topic_id, partition, first_offset))
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "meta/share_store.h"
#include "meta/sqlite_db.h"

namespace ketch::meta {

class sqlite_share_store final : public share_store, public sqlite::file_store<sqlite_share_store> {
public:
    static constexpr const char* file_name = "shares.db";
    static const std::span<const char* const> migrations;

    ~sqlite_share_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<stored_share_partition>, store_error> load() override;
    status<store_error> put(std::span<const stored_share_partition> parts) override;
    status<store_error> remove(const std::string& group, const uuid& topic_id, int32_t partition) override;

private:
    using file_store::file_store;
};

}  // namespace ketch::meta
