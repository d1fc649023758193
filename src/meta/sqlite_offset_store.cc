#include "meta/sqlite_offset_store.h"

#include <sqlite3.h>

#include "meta/sqlite_db.h"
#include "meta/sqlite_offset_rows.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_offset_migrations[] = {
    "CREATE TABLE offsets ("
    " group_id BLOB NOT NULL,"
    " topic BLOB NOT NULL,"
    " partition INTEGER NOT NULL,"
    " committed_offset INTEGER NOT NULL,"
    " leader_epoch INTEGER NOT NULL,"
    " metadata BLOB NOT NULL,"
    " commit_ms INTEGER NOT NULL,"
    " expire_ms INTEGER,"
    " PRIMARY KEY (group_id, topic, partition)) WITHOUT ROWID;"
    "CREATE TABLE groups ("
    " group_id BLOB PRIMARY KEY,"
    " protocol_type BLOB NOT NULL,"
    " generation INTEGER NOT NULL,"
    " empty_since_ms INTEGER)",
    // 2: the state of a group's last stable generation
    "ALTER TABLE groups ADD COLUMN state BLOB NOT NULL DEFAULT x''",
};

using sqlite::statement;

class sqlite_offset_store final : public sqlite::file_store<sqlite_offset_store, offset_store> {
public:
    using file_store::file_store;

    result<std::vector<stored_offset>, store_error> load_offsets() override {
        std::lock_guard lock(mu_);
        return sqlite::select_all<stored_offset>(
            db_,
            "SELECT group_id, topic, partition, committed_offset, leader_epoch, metadata, commit_ms, expire_ms"
            " FROM offsets",
            "load offsets", [](statement& q) {
                auto o = sqlite::offset_at(q, 0);
                o.expire_timestamp_ms = q.opt_int_at(sqlite::k_offset_columns);
                return o;
            });
    }

    result<std::vector<stored_group>, store_error> load_groups() override {
        std::lock_guard lock(mu_);
        return sqlite::select_all<stored_group>(
            db_, "SELECT group_id, protocol_type, generation, empty_since_ms, state FROM groups", "load groups",
            [](statement& q) {
                return stored_group{q.blob_at(0), q.blob_at(1), int32_t(q.int_at(2)), q.opt_int_at(3), q.blob_at(4)};
            });
    }

    status<store_error> commit_offsets(std::span<const stored_offset> offsets) override {
        std::lock_guard lock(mu_);
        return sqlite::run_each(db_,
                                "INSERT OR REPLACE INTO offsets (group_id, topic, partition, committed_offset,"
                                " leader_epoch, metadata, commit_ms, expire_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                "commit offsets", offsets, [](statement& q, const stored_offset& o) {
                                    sqlite::bind_offset(q, 1, o);
                                    q.bind(1 + sqlite::k_offset_columns, o.expire_timestamp_ms);
                                });
    }

    status<store_error> delete_offsets(const std::string& group, std::span<const offset_key> keys) override {
        std::lock_guard lock(mu_);
        return sqlite::run_each(db_, "DELETE FROM offsets WHERE group_id = ? AND topic = ? AND partition = ?",
                                "delete offsets", keys, [&](statement& q, const offset_key& k) {
                                    q.bind(1, group);
                                    q.bind(2, k.topic);
                                    q.bind(3, int64_t(k.partition));
                                });
    }

    status<store_error> delete_groups(std::span<const std::string> groups) override {
        std::lock_guard lock(mu_);
        return sqlite::in_transaction(db_, "delete groups", [&]() -> status<store_error> {
            auto by_group = [](statement& q, const std::string& g) { q.bind(1, g); };
            statement del_o(db_, "DELETE FROM offsets WHERE group_id = ?");
            statement del_g(db_, "DELETE FROM groups WHERE group_id = ?");
            if (auto st = sqlite::step_each(db_, del_o, "delete groups", groups, by_group); !st) return st;
            return sqlite::step_each(db_, del_g, "delete groups", groups, by_group);
        });
    }

    status<store_error> put_group(const stored_group& g) override {
        std::lock_guard lock(mu_);
        return sqlite::run(db_,
                           "INSERT INTO groups (group_id, protocol_type, generation, empty_since_ms, state)"
                           " VALUES (?, ?, ?, ?, ?)"
                           " ON CONFLICT (group_id) DO UPDATE SET protocol_type = excluded.protocol_type,"
                           " generation = excluded.generation, empty_since_ms = excluded.empty_since_ms,"
                           " state = excluded.state"
                           " WHERE excluded.generation >= groups.generation",
                           "put group", [&](statement& q) {
                               q.bind(1, g.group);
                               q.bind(2, g.protocol_type);
                               q.bind(3, int64_t(g.generation));
                               q.bind(4, g.empty_since_ms);
                               q.bind(5, g.state);
                           });
    }
};

}  // namespace

result<std::unique_ptr<offset_store>, store_error> open_sqlite_offset_store(const std::filesystem::path& data_dir) {
    return sqlite_offset_store::open(data_dir, "offsets.db", k_offset_migrations);
}

}  // namespace ketch::meta
