// The embedded ACL store: <data-dir>/acls.db (SQLite, WAL, synchronous=FULL),
// a file of its own so its schema versions on its own.
//
// Schema (version 1, PRAGMA user_version):
//   acls(resource_type INTEGER, resource_name BLOB, pattern_type INTEGER,
//        principal BLOB, host BLOB, operation INTEGER, permission INTEGER,
//        PRIMARY KEY (all seven))
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "meta/acl_store.h"
#include "meta/sqlite_db.h"

namespace ketch::meta {

class sqlite_acl_store final : public acl_store, public sqlite::file_store<sqlite_acl_store> {
public:
    static constexpr const char* file_name = "acls.db";
    static const std::span<const char* const> migrations;

    ~sqlite_acl_store() override;  // out of line: GCC 12 misreads the inline one (free-nonheap-object)

    std::vector<stored_acl> list() const override;
    status<store_error> apply(const std::vector<stored_acl>& add, const std::vector<stored_acl>& remove) override;

private:
    using file_store::file_store;
};

}  // namespace ketch::meta
