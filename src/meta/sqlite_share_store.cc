#include "meta/sqlite_share_store.h"

#include <sqlite3.h>
#include <map>
#include <tuple>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_share_migrations[] = {
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
using key = std::tuple<std::string, std::string, int32_t>;

std::string id_bytes(const uuid& id) { return std::string(reinterpret_cast<const char*>(id.b.data()), 16); }

// Binds the (group, topic id, partition) key to parameters 1-3.
void bind_share_key(statement& q, const std::string& group, const uuid& topic_id, int32_t partition) {
    q.bind(1, group);
    q.bind(2, id_bytes(topic_id));
    q.bind(3, int64_t(partition));
}

class sqlite_share_store final : public sqlite::file_store<sqlite_share_store, share_store> {
public:
    using file_store::file_store;

    result<std::vector<stored_share_partition>, store_error> load() override {
        std::lock_guard lock(mu_);
        std::vector<stored_share_partition> out;
        std::map<key, size_t> index;
        statement q(db_, "SELECT group_id, topic_id, partition, start_offset FROM share_partitions");
        auto st = sqlite::for_each_row(db_, q, "load share partitions", [&](statement& r) {
            stored_share_partition p;
            p.group = r.blob_at(0);
            if (!r.uuid_at(1, p.topic_id)) return;
            p.partition = int32_t(r.int_at(2));
            p.start_offset = r.int_at(3);
            index[{p.group, r.blob_at(1), p.partition}] = out.size();
            out.push_back(std::move(p));
        });
        if (!st) return failure{st.error()};
        statement b(db_,
                    "SELECT group_id, topic_id, partition, first_offset, last_offset, state, delivery_count"
                    " FROM share_batches ORDER BY group_id, topic_id, partition, first_offset");
        st = sqlite::for_each_row(db_, b, "load share batches", [&](statement& r) {
            auto it = index.find({r.blob_at(0), r.blob_at(1), int32_t(r.int_at(2))});
            if (it == index.end()) return;
            out[it->second].batches.push_back({r.int_at(3), r.int_at(4), int8_t(r.int_at(5)), int16_t(r.int_at(6))});
        });
        if (!st) return failure{st.error()};
        return out;
    }

    status<store_error> put(std::span<const stored_share_partition> parts) override {
        std::lock_guard lock(mu_);
        constexpr std::string_view what = "write share state";
        return sqlite::in_transaction(db_, what, [&]() -> status<store_error> {
            statement up(db_,
                         "INSERT OR REPLACE INTO share_partitions (group_id, topic_id, partition, start_offset)"
                         " VALUES (?, ?, ?, ?)");
            statement del(db_, "DELETE FROM share_batches WHERE group_id = ? AND topic_id = ? AND partition = ?");
            statement ins(db_,
                          "INSERT INTO share_batches (group_id, topic_id, partition, first_offset, last_offset, state,"
                          " delivery_count) VALUES (?, ?, ?, ?, ?, ?, ?)");
            for (auto& p : parts) {
                auto key = [&](statement& q) { bind_share_key(q, p.group, p.topic_id, p.partition); };
                auto start = [&](statement& q) {
                    key(q);
                    q.bind(4, p.start_offset);
                };
                auto batch = [&](statement& q, const stored_share_batch& b) {
                    key(q);
                    q.bind(4, b.first_offset);
                    q.bind(5, b.last_offset);
                    q.bind(6, int64_t(b.state));
                    q.bind(7, int64_t(b.delivery_count));
                };
                if (auto st = sqlite::step_once(db_, up, what, start); !st) return st;
                if (auto st = sqlite::step_once(db_, del, what, key); !st) return st;
                if (auto st = sqlite::step_each(db_, ins, what, p.batches, batch); !st) return st;
            }
            return ok_v;
        });
    }

    status<store_error> remove(const std::string& group, const uuid& topic_id, int32_t partition) override {
        std::lock_guard lock(mu_);
        return sqlite::in_transaction(db_, "delete share state", [&]() -> status<store_error> {
            for (auto sql : {"DELETE FROM share_partitions WHERE group_id = ? AND topic_id = ? AND partition = ?",
                             "DELETE FROM share_batches WHERE group_id = ? AND topic_id = ? AND partition = ?"}) {
                auto st = sqlite::run(db_, sql, "delete share state",
                                      [&](statement& q) { bind_share_key(q, group, topic_id, partition); });
                if (!st) return st;
            }
            return ok_v;
        });
    }
};

}  // namespace

result<std::unique_ptr<share_store>, store_error> open_sqlite_share_store(const std::filesystem::path& data_dir) {
    return sqlite_share_store::open(data_dir, "shares.db", k_share_migrations);
}

}  // namespace ketch::meta
