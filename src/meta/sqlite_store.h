// The embedded metadata store: one SQLite database, <data-dir>/meta.db, in WAL
// mode with synchronous=FULL, so a committed transaction is on disk when the
// call returns. One connection, used under a mutex.
//
// Schema (version 4, PRAGMA user_version; the migrations in sqlite_store.cc):
//   topics(id BLOB(16) PRIMARY KEY, name TEXT UNIQUE, partition_count INTEGER,
//          replication_factor INTEGER, created_ms INTEGER)
//   topic_configs(topic_id BLOB REFERENCES topics ON DELETE CASCADE, name TEXT,
//                 value TEXT, PRIMARY KEY (topic_id, name))  -- overrides, raw values
//   broker_configs(scope TEXT, name TEXT, value TEXT, PRIMARY KEY (scope, name))  -- version 2
//   group_configs(group_id TEXT, name TEXT, value TEXT, PRIMARY KEY (group_id, name))  -- version 3
//   client_metrics_configs(subscription TEXT, name TEXT, value TEXT,
//                          PRIMARY KEY (subscription, name))  -- version 4
#pragma once

#include <filesystem>
#include <memory>

#include "meta/store.h"

namespace ketch::meta {

// Opens (creating if needed) <data_dir>/meta.db, creating data_dir if
// missing; fails if the file is not a ketch metadata database or has a newer
// schema. Foreign keys are on.
result<std::unique_ptr<store>, store_error> open_sqlite_store(const std::filesystem::path& data_dir);

}  // namespace ketch::meta
