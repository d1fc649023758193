#include "meta/sqlite_share_store.h"

#include <sqlite3.h>
#include <map>
#include <tuple>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_migrations[] = {
    "CREATE TABLE share_partitions ("
    " group_id BLOB NOT NULL,"
    " topic_id BLOB NOT NULL,"
    " partition INTEGER NOT NULL,"
    " start_offset INTEGER NOT NULL,"
    " PRIMARY KEY (group_id, topic_id, partition)) WITHOUT ROWID;"
    "CREATE TABLE share_batches ("
    " group_id BLOB NOT NULL,"
    " topic_id BLOB NOT NULL,"
    " partition INTEGER NOT NULL,"
    " first_offset INTEGER NOT NULL,"
    " last_offset INTEGER NOT NULL,"
    " state INTEGER NOT NULL,"
    " delivery_count INTEGER NOT NULL,"
    " PRIMARY KEY (group_id, topic_id, partition, first_offset)) WITHOUT ROWID",
};

using sqlite::statement;
using sqlite::transaction;
using key = std::tuple<std::string, std::string, int32_t>;

std::string id_bytes(const uuid& id) { return std::string(reinterpret_cast<const char*>(id.b.data()), 16); }

}  // namespace

result<std::unique_ptr<sqlite_share_store>, store_error> sqlite_share_store::open(
    const std::filesystem::path& data_dir) {
    auto db = sqlite::open(data_dir, file_name, k_migrations);
    if (!db) return failure{db.error()};
    std::unique_ptr<sqlite_share_store> s(new sqlite_share_store(sqlite::connection(*db)));
    return s;
}

sqlite_share_store::~sqlite_share_store() = default;

result<std::vector<stored_share_partition>, store_error> sqlite_share_store::load() {
    std::lock_guard lock(mu_);
    std::vector<stored_share_partition> out;
    std::map<key, size_t> index;
    statement q(db_, "SELECT group_id, topic_id, partition, start_offset FROM share_partitions");
    if (!q.ok()) return failure{sqlite::error(db_, "load share partitions")};
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        stored_share_partition p;
        p.group = q.blob_at(0);
        if (!q.uuid_at(1, p.topic_id)) continue;
        p.partition = int32_t(q.int_at(2));
        p.start_offset = q.int_at(3);
        index[{p.group, q.blob_at(1), p.partition}] = out.size();
        out.push_back(std::move(p));
    }
    if (rc != SQLITE_DONE) return failure{sqlite::error(db_, "load share partitions")};
    statement b(db_,
                "SELECT group_id, topic_id, partition, first_offset, last_offset, state, delivery_count"
                " FROM share_batches ORDER BY group_id, topic_id, partition, first_offset");
    if (!b.ok()) return failure{sqlite::error(db_, "load share batches")};
    while ((rc = b.step()) == SQLITE_ROW) {
        auto it = index.find({b.blob_at(0), b.blob_at(1), int32_t(b.int_at(2))});
        if (it == index.end()) continue;
        out[it->second].batches.push_back({b.int_at(3), b.int_at(4), int8_t(b.int_at(5)), int16_t(b.int_at(6))});
    }
    if (rc != SQLITE_DONE) return failure{sqlite::error(db_, "load share batches")};
    return out;
}

status<store_error> sqlite_share_store::put(std::span<const stored_share_partition> parts) {
    std::lock_guard lock(mu_);
    transaction tx(db_);
    if (!tx.began()) return failure{sqlite::error(db_, "write share state")};
    statement up(db_,
                 "INSERT OR REPLACE INTO share_partitions (group_id, topic_id, partition, start_offset)"
                 " VALUES (?, ?, ?, ?)");
    statement del(db_, "DELETE FROM share_batches WHERE group_id = ? AND topic_id = ? AND partition = ?");
    statement ins(db_,
                  "INSERT INTO share_batches (group_id, topic_id, partition, first_offset, last_offset, state,"
                  " delivery_count) VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!up.ok() || !del.ok() || !ins.ok()) return failure{sqlite::error(db_, "write share state")};
    for (auto& p : parts) {
        up.bind(1, p.group);
        up.bind(2, id_bytes(p.topic_id));
        up.bind(3, int64_t(p.partition));
        up.bind(4, p.start_offset);
        if (up.step() != SQLITE_DONE) return failure{sqlite::error(db_, "write share state")};
        up.reset();
        del.bind(1, p.group);
        del.bind(2, id_bytes(p.topic_id));
        del.bind(3, int64_t(p.partition));
        if (del.step() != SQLITE_DONE) return failure{sqlite::error(db_, "write share state")};
        del.reset();
        for (auto& b : p.batches) {
            ins.bind(1, p.group);
            ins.bind(2, id_bytes(p.topic_id));
            ins.bind(3, int64_t(p.partition));
            ins.bind(4, b.first_offset);
            ins.bind(5, b.last_offset);
            ins.bind(6, int64_t(b.state));
            ins.bind(7, int64_t(b.delivery_count));
            if (ins.step() != SQLITE_DONE) return failure{sqlite::error(db_, "write share state")};
            ins.reset();
        }
    }
    if (!tx.commit()) return failure{sqlite::error(db_, "write share state")};
    return ok_v;
}

status<store_error> sqlite_share_store::remove(const std::string& group, const uuid& topic_id, int32_t partition) {
    std::lock_guard lock(mu_);
    transaction tx(db_);
    if (!tx.began()) return failure{sqlite::error(db_, "delete share state")};
    for (auto sql : {"DELETE FROM share_partitions WHERE group_id = ? AND topic_id = ? AND partition = ?",
                     "DELETE FROM share_batches WHERE group_id = ? AND topic_id = ? AND partition = ?"}) {
        statement d(db_, sql);
        if (!d.ok()) return failure{sqlite::error(db_, "delete share state")};
        d.bind(1, group);
        d.bind(2, id_bytes(topic_id));
        d.bind(3, int64_t(partition));
        if (d.step() != SQLITE_DONE) return failure{sqlite::error(db_, "delete share state")};
    }
    if (!tx.commit()) return failure{sqlite::error(db_, "delete share state")};
    return ok_v;
}

}  // namespace ketch::meta
