#include "meta/sqlite_store.h"

#include <sqlite3.h>

#include "meta/sqlite_db.h"

namespace ketch::meta {

namespace {

using sqlite::exec;
using sqlite::statement;
using sqlite::transaction;

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_meta_migrations[] = {
    "CREATE TABLE topics ("
    " id BLOB PRIMARY KEY CHECK (length(id) = 16),"
    " name TEXT NOT NULL UNIQUE,"
    " partition_count INTEGER NOT NULL,"
    " replication_factor INTEGER NOT NULL,"
    " created_ms INTEGER NOT NULL);"
    "CREATE TABLE topic_configs ("
    " topic_id BLOB NOT NULL REFERENCES topics(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (topic_id, name))",
    // 2: dynamic broker configs (IF NOT EXISTS: a version-1 file may already have the table)
    "CREATE TABLE IF NOT EXISTS broker_configs ("
    " scope TEXT NOT NULL,"
    " name TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (scope, name))",
    // 3: per-group config overrides (raw values, as the client sent them)
    "CREATE TABLE group_configs ("
    " group_id TEXT NOT NULL,"
    " name TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (group_id, name))",
    // 4: client metrics subscriptions (raw values)
    "CREATE TABLE client_metrics_configs ("
    " subscription TEXT NOT NULL,"
    " name TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (subscription, name))",
};

// Replaces the (key, name, value) rows of one key with `configs`: `del_sql`
// deletes by key, `ins_sql` inserts a row. Topics are keyed by id, the other
// tables by text.
template <class Key>
status<store_error> write_keyed_configs(sqlite3* db, const char* del_sql, const char* ins_sql, const Key& key,
                                        const config_map& configs, std::string_view what) {
    auto bind_key = [&](statement& q) {
        if constexpr (std::is_same_v<Key, uuid>)
            q.bind(1, key);
        else
            q.bind_text(1, key);
    };
    statement del(db, del_sql);
    statement ins(db, ins_sql);
    if (auto st = sqlite::step_once(db, del, what, bind_key); !st) return st;
    return sqlite::step_each(db, ins, what, configs, [&](statement& q, const auto& config) {
        bind_key(q);
        q.bind_text(2, config.first);
        q.bind_text(3, config.second);
    });
}

// Replaces the config rows of topic `id` with `configs`.
bool write_configs(sqlite3* db, const uuid& id, const config_map& configs) {
    return write_keyed_configs(db, "DELETE FROM topic_configs WHERE topic_id = ?",
                               "INSERT INTO topic_configs (topic_id, name, value) VALUES (?, ?, ?)", id, configs,
                               "write topic configs")
        .ok();
}

// Loads a (key, name, value) table as key -> configs.
result<std::map<std::string, config_map>, store_error> load_keyed_configs(sqlite3* db, const char* sql,
                                                                          const char* what) {
    statement q(db, sql);
    std::map<std::string, config_map> out;
    auto st =
        sqlite::for_each_row(db, q, what, [&](statement& r) { out[r.text_at(0)].emplace(r.text_at(1), r.text_at(2)); });
    if (!st) return failure{st.error()};
    return out;
}

// Replaces the rows of one key, in a transaction of its own.
status<store_error> replace_keyed_configs(sqlite3* db, const char* del_sql, const char* ins_sql, const std::string& key,
                                          const config_map& configs, const char* what) {
    return sqlite::in_transaction(db, what,
                                  [&] { return write_keyed_configs(db, del_sql, ins_sql, key, configs, what); });
}

class sqlite_store final : public sqlite::file_store<sqlite_store, store> {
public:
    using file_store::file_store;

    result<std::vector<topic>, store_error> load_topics() override {
        std::lock_guard lock(mu_);
        statement q(db_, "SELECT id, name, partition_count, replication_factor, created_ms FROM topics");
        statement c(db_, "SELECT name, value FROM topic_configs WHERE topic_id = ?");
        if (!q.ok() || !c.ok()) return failure{sqlite::error(db_, "load topics")};
        std::vector<topic> out;
        int rc;
        while ((rc = q.step()) == SQLITE_ROW) {
            topic t;
            if (!q.uuid_at(0, t.id)) return failure{store_error{"corrupt topic id in meta.db"}};
            t.name = q.text_at(1);
            t.partition_count = int32_t(q.int_at(2));
            t.replication_factor = int16_t(q.int_at(3));
            t.created_ms = q.int_at(4);
            c.bind(1, t.id);
            int crc;
            while ((crc = c.step()) == SQLITE_ROW) t.configs.emplace(c.text_at(0), c.text_at(1));
            if (crc != SQLITE_DONE) return failure{sqlite::error(db_, "load configs of topic " + t.name)};
            c.reset();
            out.push_back(std::move(t));
        }
        if (rc != SQLITE_DONE) return failure{sqlite::error(db_, "load topics")};
        return out;
    }

    status<store_error> insert_topics(std::span<const topic> topics) override {
        std::lock_guard lock(mu_);
        transaction tx(db_);
        if (!tx.began()) return failure{sqlite::error(db_, "insert topics")};
        statement ins(db_,
                      "INSERT INTO topics (id, name, partition_count, replication_factor, created_ms)"
                      " VALUES (?, ?, ?, ?, ?)");
        if (!ins.ok()) return failure{sqlite::error(db_, "insert topics")};
        for (const auto& t : topics) {
            ins.bind(1, t.id);
            ins.bind_text(2, t.name);
            ins.bind(3, int64_t(t.partition_count));
            ins.bind(4, int64_t(t.replication_factor));
            ins.bind(5, t.created_ms);
            if (ins.step() != SQLITE_DONE || !write_configs(db_, t.id, t.configs))
                return failure{sqlite::error(db_, "insert topic " + t.name)};
            ins.reset();
        }
        if (!tx.commit()) return failure{sqlite::error(db_, "commit insert topics")};
        return ok_v;
    }

    status<store_error> delete_topics(std::span<const uuid> ids) override {
        std::lock_guard lock(mu_);
        // topic_configs rows go by ON DELETE CASCADE
        return sqlite::run_each(db_, "DELETE FROM topics WHERE id = ?", "delete topics", ids,
                                [](statement& q, const uuid& id) { q.bind(1, id); });
    }

    status<store_error> set_partition_count(const uuid& id, int32_t partition_count) override {
        std::lock_guard lock(mu_);
        auto st = sqlite::run(db_, "UPDATE topics SET partition_count = ? WHERE id = ?", "set partition count",
                              [&](statement& q) {
                                  q.bind(1, int64_t(partition_count));
                                  q.bind(2, id);
                              });
        if (!st) return st;
        if (sqlite3_changes(db_) != 1) return failure{store_error{"no topic with id " + id.to_base64()}};
        return ok_v;
    }

    status<store_error> set_topic_configs(const uuid& id, const config_map& configs) override {
        std::lock_guard lock(mu_);
        transaction tx(db_);
        if (!tx.began()) return failure{sqlite::error(db_, "set topic configs")};
        statement q(db_, "SELECT 1 FROM topics WHERE id = ?");
        if (!q.ok()) return failure{sqlite::error(db_, "set topic configs")};
        q.bind(1, id);
        int rc = q.step();
        if (rc == SQLITE_DONE) return failure{store_error{"no topic with id " + id.to_base64()}};
        if (rc != SQLITE_ROW || !write_configs(db_, id, configs) || !tx.commit())
            return failure{sqlite::error(db_, "set topic configs")};
        return ok_v;
    }

    result<std::map<std::string, config_map>, store_error> load_broker_configs() override {
        std::lock_guard lock(mu_);
        return load_keyed_configs(db_, "SELECT scope, name, value FROM broker_configs", "load broker configs");
    }

    status<store_error> set_broker_configs(const std::string& scope, const config_map& configs) override {
        std::lock_guard lock(mu_);
        return replace_keyed_configs(db_, "DELETE FROM broker_configs WHERE scope = ?",
                                     "INSERT INTO broker_configs (scope, name, value) VALUES (?, ?, ?)", scope, configs,
                                     "set broker configs");
    }

    result<std::map<std::string, config_map>, store_error> load_resource_configs(config_resource kind) override {
        std::lock_guard lock(mu_);
        if (kind == config_resource::group)
            return load_keyed_configs(db_, "SELECT group_id, name, value FROM group_configs", "load group configs");
        return load_keyed_configs(db_, "SELECT subscription, name, value FROM client_metrics_configs",
                                  "load client metrics configs");
    }

    status<store_error> set_resource_configs(config_resource kind, const std::string& name,
                                             const config_map& configs) override {
        std::lock_guard lock(mu_);
        if (kind == config_resource::group)
            return replace_keyed_configs(db_, "DELETE FROM group_configs WHERE group_id = ?",
                                         "INSERT INTO group_configs (group_id, name, value) VALUES (?, ?, ?)", name,
                                         configs, "set group configs");
        return replace_keyed_configs(db_, "DELETE FROM client_metrics_configs WHERE subscription = ?",
                                     "INSERT INTO client_metrics_configs (subscription, name, value) VALUES (?, ?, ?)",
                                     name, configs, "set client metrics configs");
    }

private:
    friend file_store;

    status<store_error> opened() {
        if (!exec(db_, "PRAGMA foreign_keys=ON")) return failure{sqlite::error(db_, "cannot enable foreign keys")};
        return ok_v;
    }
};

}  // namespace

result<std::unique_ptr<store>, store_error> open_sqlite_store(const std::filesystem::path& data_dir) {
    return sqlite_store::open(data_dir, "meta.db", k_meta_migrations);
}

}  // namespace ketch::meta
