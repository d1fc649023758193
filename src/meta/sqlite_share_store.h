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

#include "meta/share_store.h"

namespace ketch::meta {

// Opens (creating if needed) <data_dir>/shares.db.
result<std::unique_ptr<share_store>, store_error> open_sqlite_share_store(const std::filesystem::path& data_dir);

}  // namespace ketch::meta
