#include "meta/sqlite_txn_store.h"

#include <sqlite3.h>

#include "meta/sqlite_db.h"
#include "meta/sqlite_offset_rows.h"

namespace ketch::meta {

namespace {

// migrations[v] takes the file from schema version v to v + 1.
constexpr const char* k_txn_migrations[] = {
    "CREATE TABLE txns (transactional_id BLOB PRIMARY KEY, producer_id INTEGER NOT NULL,"
    " previous_producer_id INTEGER NOT NULL, producer_epoch INTEGER NOT NULL,"
    " last_producer_epoch INTEGER NOT NULL, timeout_ms INTEGER NOT NULL, state INTEGER NOT NULL,"
    " partitions BLOB NOT NULL, txn_start_ms INTEGER NOT NULL, last_update_ms INTEGER NOT NULL);"
    "CREATE TABLE pending_offsets (producer_id INTEGER NOT NULL, group_id BLOB NOT NULL,"
    " topic BLOB NOT NULL, partition INTEGER NOT NULL, committed_offset INTEGER NOT NULL,"
    " leader_epoch INTEGER NOT NULL, metadata BLOB NOT NULL, commit_ms INTEGER NOT NULL,"
    " PRIMARY KEY (producer_id, group_id, topic, partition)) WITHOUT ROWID",
    // Transaction version 2 (KIP-890): the next producer id, the client's version.
    "ALTER TABLE txns ADD COLUMN next_producer_id INTEGER NOT NULL DEFAULT -1;"
    "ALTER TABLE txns ADD COLUMN client_txn_version INTEGER NOT NULL DEFAULT 0",
};

using stmt = sqlite::statement;

std::string encode_partitions(const std::vector<std::pair<std::string, int32_t>>& ps) {
    std::string out;
    for (auto& [t, p] : ps) {
        out += t;
        out.push_back('\0');
        out += std::to_string(p);
        out.push_back('\n');
    }
    return out;
}

std::vector<std::pair<std::string, int32_t>> decode_partitions(const std::string& s) {
    std::vector<std::pair<std::string, int32_t>> out;
    size_t pos = 0;
    while (pos < s.size()) {
        size_t z = s.find('\0', pos);
        size_t nl = s.find('\n', z);
        if (z == std::string::npos || nl == std::string::npos) break;
        out.emplace_back(s.substr(pos, z - pos), std::stoi(s.substr(z + 1, nl - z - 1)));
        pos = nl + 1;
    }
    return out;
}

class sqlite_txn_store final : public sqlite::file_store<sqlite_txn_store, txn_store> {
public:
    using file_store::file_store;

    result<std::vector<stored_txn>, store_error> load_txns() override {
        std::lock_guard l(mu_);
        return sqlite::select_all<stored_txn>(
            db_,
            "SELECT transactional_id, producer_id, previous_producer_id, producer_epoch, last_producer_epoch,"
            " timeout_ms, state, partitions, txn_start_ms, last_update_ms, next_producer_id, client_txn_version"
            " FROM txns",
            "load txns", [](stmt& q) {
                stored_txn t;
                t.transactional_id = q.blob_at(0);
                t.producer_id = q.int_at(1);
                t.previous_producer_id = q.int_at(2);
                t.producer_epoch = int16_t(q.int_at(3));
                t.last_producer_epoch = int16_t(q.int_at(4));
                t.timeout_ms = int32_t(q.int_at(5));
                t.state = int8_t(q.int_at(6));
                t.partitions = decode_partitions(q.blob_at(7));
                t.txn_start_ms = q.int_at(8);
                t.last_update_ms = q.int_at(9);
                t.next_producer_id = q.int_at(10);
                t.client_txn_version = int8_t(q.int_at(11));
                return t;
            });
    }

    status<store_error> put_txn(const stored_txn& t) override {
        std::lock_guard l(mu_);
        return sqlite::run(db_,
                           "INSERT OR REPLACE INTO txns VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           "put txn", [&](stmt& q) {
                               q.bind(1, t.transactional_id);
                               q.bind(2, t.producer_id);
                               q.bind(3, t.previous_producer_id);
                               q.bind(4, int64_t(t.producer_epoch));
                               q.bind(5, int64_t(t.last_producer_epoch));
                               q.bind(6, int64_t(t.timeout_ms));
                               q.bind(7, int64_t(t.state));
                               q.bind(8, encode_partitions(t.partitions));
                               q.bind(9, t.txn_start_ms);
                               q.bind(10, t.last_update_ms);
                               q.bind(11, t.next_producer_id);
                               q.bind(12, int64_t(t.client_txn_version));
                           });
    }

    status<store_error> delete_txn(const std::string& id) override {
        std::lock_guard l(mu_);
        return sqlite::run(db_, "DELETE FROM txns WHERE transactional_id = ?1", "delete txn",
                           [&](stmt& q) { q.bind(1, id); });
    }

    result<std::vector<pending_txn_offset>, store_error> load_pending_offsets() override {
        std::lock_guard l(mu_);
        return sqlite::select_all<pending_txn_offset>(
            db_,
            "SELECT producer_id, group_id, topic, partition, committed_offset, leader_epoch, metadata, commit_ms"
            " FROM pending_offsets",
            "load pending offsets", [](stmt& q) {
                return pending_txn_offset{q.int_at(0), sqlite::offset_at(q, 1)};
            });
    }

    status<store_error> put_pending_offsets(std::span<const pending_txn_offset> offsets) override {
        std::lock_guard l(mu_);
        return sqlite::run_each(db_, "INSERT OR REPLACE INTO pending_offsets VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                                "put pending offsets", offsets, [](stmt& q, const pending_txn_offset& p) {
                                    q.bind(1, p.producer_id);
                                    sqlite::bind_offset(q, 2, p.offset);
                                });
    }

    status<store_error> delete_pending_offsets(int64_t producer_id) override {
        std::lock_guard l(mu_);
        return sqlite::run(db_, "DELETE FROM pending_offsets WHERE producer_id = ?1", "delete pending offsets",
                           [&](stmt& q) { q.bind(1, producer_id); });
    }
};

}  // namespace

result<std::unique_ptr<txn_store>, store_error> open_sqlite_txn_store(const std::filesystem::path& data_dir) {
    return sqlite_txn_store::open(data_dir, "txn.db", k_txn_migrations);
}

}  // namespace ketch::meta
