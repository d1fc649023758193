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
#include <mutex>

#include "meta/sqlite_db.h"
#include "meta/store.h"

namespace ketch::meta {

class sqlite_store final : public store, public sqlite::file_store<sqlite_store> {
public:
    static constexpr const char* file_name = "meta.db";
    static const std::span<const char* const> migrations;

    // open(data_dir) opens (creating if needed) <data_dir>/meta.db, creating
    // data_dir if missing; it fails if the file is not a ketch metadata
    // database or has a newer schema.
    ~sqlite_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    result<std::vector<topic>, store_error> load_topics() override;
    status<store_error> insert_topics(std::span<const topic> topics) override;
    status<store_error> delete_topics(std::span<const uuid> ids) override;
    status<store_error> set_partition_count(const uuid& id, int32_t partition_count) override;
    status<store_error> set_topic_configs(const uuid& id, const config_map& configs) override;
    result<std::map<std::string, config_map>, store_error> load_broker_configs() override;
    status<store_error> set_broker_configs(const std::string& scope, const config_map& configs) override;
    result<std::map<std::string, config_map>, store_error> load_resource_configs(config_resource kind) override;
    status<store_error> set_resource_configs(config_resource kind, const std::string& name,
                                             const config_map& configs) override;

private:
    friend file_store;
    using file_store::file_store;
    status<store_error> opened();  // enables foreign keys
};

}  // namespace ketch::meta
