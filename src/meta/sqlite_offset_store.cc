#include "meta/sqlite_offset_store.h"

#include <sqlite3.h>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_migrations[] = {
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
using sqlite::transaction;

}  // namespace

result<std::unique_ptr<sqlite_offset_store>, store_error> sqlite_offset_store::open(
    const std::filesystem::path& data_dir) {
    auto db = sqlite::open(data_dir, file_name, k_migrations);
    if (!db) return failure{db.error()};
    std::unique_ptr<sqlite_offset_store> s(new sqlite_offset_store(sqlite::connection(*db)));
    return s;
}

sqlite_offset_store::~sqlite_offset_store() = default;

result<std::vector<stored_offset>, store_error> sqlite_offset_store::load_offsets() {
    std::lock_guard lock(mu_);
    statement q(db_,
                "SELECT group_id, topic, partition, committed_offset, leader_epoch, metadata, commit_ms, expire_ms"
                " FROM offsets");
    if (!q.ok()) return failure{sqlite::error(db_, "load offsets")};
    std::vector<stored_offset> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        stored_offset o;
        o.group = q.blob_at(0);
        o.topic = q.blob_at(1);
        o.partition = int32_t(q.int_at(2));
        o.offset = q.int_at(3);
        o.leader_epoch = int32_t(q.int_at(4));
        o.metadata = q.blob_at(5);
        o.commit_timestamp_ms = q.int_at(6);
        o.expire_timestamp_ms = q.opt_int_at(7);
        out.push_back(std::move(o));
    }
    if (rc != SQLITE_DONE) return failure{sqlite::error(db_, "load offsets")};
    return out;
}

result<std::vector<stored_group>, store_error> sqlite_offset_store::load_groups() {
    std::lock_guard lock(mu_);
    statement q(db_, "SELECT group_id, protocol_type, generation, empty_since_ms, state FROM groups");
    if (!q.ok()) return failure{sqlite::error(db_, "load groups")};
    std::vector<stored_group> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        stored_group g;
        g.group = q.blob_at(0);
        g.protocol_type = q.blob_at(1);
        g.generation = int32_t(q.int_at(2));
        g.empty_since_ms = q.opt_int_at(3);
        g.state = q.blob_at(4);
        out.push_back(std::move(g));
    }
    if (rc != SQLITE_DONE) return failure{sqlite::error(db_, "load groups")};
    return out;
}

status<store_error> sqlite_offset_store::commit_offsets(std::span<const stored_offset> offsets) {
    std::lock_guard lock(mu_);
    transaction tx(db_);
    if (!tx.began()) return failure{sqlite::error(db_, "commit offsets")};
    statement ins(db_,
                  "INSERT OR REPLACE INTO offsets (group_id, topic, partition, committed_offset, leader_epoch,"
                  " metadata, commit_ms, expire_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    if (!ins.ok()) return failure{sqlite::error(db_, "commit offsets")};
    for (const auto& o : offsets) {
        ins.bind(1, o.group);
        ins.bind(2, o.topic);
        ins.bind(3, int64_t(o.partition));
        ins.bind(4, o.offset);
        ins.bind(5, int64_t(o.leader_epoch));
        ins.bind(6, o.metadata);
        ins.bind(7, o.commit_timestamp_ms);
        ins.bind(8, o.expire_timestamp_ms);
        if (ins.step() != SQLITE_DONE) return failure{sqlite::error(db_, "commit offsets")};
        ins.reset();
    }
    if (!tx.commit()) return failure{sqlite::error(db_, "commit offsets")};
    return ok_v;
}

status<store_error> sqlite_offset_store::delete_offsets(const std::string& group, std::span<const offset_key> keys) {
    std::lock_guard lock(mu_);
    transaction tx(db_);
    if (!tx.began()) return failure{sqlite::error(db_, "delete offsets")};
    statement del(db_, "DELETE FROM offsets WHERE group_id = ? AND topic = ? AND partition = ?");
    if (!del.ok()) return failure{sqlite::error(db_, "delete offsets")};
    for (const auto& k : keys) {
        del.bind(1, group);
        del.bind(2, k.topic);
        del.bind(3, int64_t(k.partition));
        if (del.step() != SQLITE_DONE) return failure{sqlite::error(db_, "delete offsets")};
        del.reset();
    }
    if (!tx.commit()) return failure{sqlite::error(db_, "delete offsets")};
    return ok_v;
}

status<store_error> sqlite_offset_store::delete_groups(std::span<const std::string> groups) {
    std::lock_guard lock(mu_);
    transaction tx(db_);
    if (!tx.began()) return failure{sqlite::error(db_, "delete groups")};
    statement del_o(db_, "DELETE FROM offsets WHERE group_id = ?");
    statement del_g(db_, "DELETE FROM groups WHERE group_id = ?");
    if (!del_o.ok() || !del_g.ok()) return failure{sqlite::error(db_, "delete groups")};
    for (const auto& g : groups) {
        del_o.bind(1, g);
        del_g.bind(1, g);
        if (del_o.step() != SQLITE_DONE || del_g.step() != SQLITE_DONE)
            return failure{sqlite::error(db_, "delete groups")};
        del_o.reset();
        del_g.reset();
    }
    if (!tx.commit()) return failure{sqlite::error(db_, "delete groups")};
    return ok_v;
}

status<store_error> sqlite_offset_store::put_group(const stored_group& g) {
    std::lock_guard lock(mu_);
    statement up(db_,
                 "INSERT INTO groups (group_id, protocol_type, generation, empty_since_ms, state)"
                 " VALUES (?, ?, ?, ?, ?)"
                 " ON CONFLICT (group_id) DO UPDATE SET protocol_type = excluded.protocol_type,"
                 " generation = excluded.generation, empty_since_ms = excluded.empty_since_ms,"
                 " state = excluded.state"
                 " WHERE excluded.generation >= groups.generation");
    if (!up.ok()) return failure{sqlite::error(db_, "put group")};
    up.bind(1, g.group);
    up.bind(2, g.protocol_type);
    up.bind(3, int64_t(g.generation));
    up.bind(4, g.empty_since_ms);
    up.bind(5, g.state);
    if (up.step() != SQLITE_DONE) return failure{sqlite::error(db_, "put group")};
    return ok_v;
}

}  // namespace ketch::meta
