// The registry's state in <data-dir>/schemas.db (SQLite, WAL, synchronous=FULL,
// created aside and renamed into place like the other stores of the data
// directory): schemas by id (never deleted), subjects' versions, compatibility
// and mode settings. docs/design/schema_registry.md describes the tables.
#pragma once

#include <filesystem>
#include <memory>

#include "registry/store.h"

struct sqlite3;

namespace ketch::registry {

class sqlite_schema_store final : public schema_store {
public:
    static constexpr const char* file_name = "schemas.db";
    static result<std::unique_ptr<sqlite_schema_store>, store_error> open(const std::filesystem::path& data_dir);
    ~sqlite_schema_store() override;

    result<store_snapshot, store_error> load() override;
    status<store_error> put_version(const std::optional<stored_schema>& schema, const std::string& subject,
                                    const version_entry& v) override;
    status<store_error> mark_deleted(const std::string& subject, const std::vector<int32_t>& versions) override;
    status<store_error> remove_versions(const std::string& subject, const std::vector<int32_t>& versions) override;
    status<store_error> put_config(const std::string& subject, std::optional<compat_level> level) override;
    status<store_error> put_mode(const std::string& subject, std::optional<mode> m) override;

private:
    explicit sqlite_schema_store(sqlite3* db) : db_(db) {}
    status<store_error> versions_update(const char* sql, const std::string& subject,
                                        const std::vector<int32_t>& versions, const char* what);
    status<store_error> put_setting(const char* table, const std::string& subject, std::optional<std::string> value);
    sqlite3* db_;
};

}  // namespace ketch::registry
