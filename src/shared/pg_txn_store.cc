#include "shared/pg_txn_store.h"

#include <spdlog/spdlog.h>

#include "shared/pg_offset_store.h"

namespace ketch::shared {

namespace {

constexpr const char* k_txn_columns =
    "SELECT producer_id, previous_producer_id, producer_epoch, last_producer_epoch, timeout_ms, state,"
    " encode(partitions, 'hex'), txn_start_ms, last_update_ms, next_producer_id, client_txn_version"
    " FROM ketch_txns WHERE transactional_id = $1::bytea";

meta::stored_txn txn_of(const std::string& id, const cluster::pg_rows& r) {
    meta::stored_txn t;
    t.transactional_id = id;
    t.producer_id = std::stoll(r.at(0, 0));
    t.previous_producer_id = std::stoll(r.at(0, 1));
    t.producer_epoch = int16_t(std::stoi(r.at(0, 2)));
    t.last_producer_epoch = int16_t(std::stoi(r.at(0, 3)));
    t.timeout_ms = std::stoi(r.at(0, 4));
    t.state = int8_t(std::stoi(r.at(0, 5)));
    t.partitions = decode_txn_partitions(from_hex(r.at(0, 6)));
    t.txn_start_ms = std::stoll(r.at(0, 7));
    t.last_update_ms = std::stoll(r.at(0, 8));
    t.next_producer_id = std::stoll(r.at(0, 9));
    t.client_txn_version = int8_t(std::stoi(r.at(0, 10)));
    return t;
}

}  // namespace

std::string encode_txn_partitions(const std::vector<std::pair<std::string, int32_t>>& parts) {
    std::string out;
    for (auto& [t, p] : parts) out += t + ":" + std::to_string(p) + "\n";
    return out;
}

std::vector<std::pair<std::string, int32_t>> decode_txn_partitions(const std::string& text) {
    std::vector<std::pair<std::string, int32_t>> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        if (auto colon = line.rfind(':'); colon != std::string::npos)
            out.emplace_back(line.substr(0, colon), std::stoi(line.substr(colon + 1)));
        at = end + 1;
    }
    return out;
}

status<meta::store_error> pg_txn_store::release(const std::string& id) {
    if (!leases_.tracks(id)) return ok_v;
    auto s = db_.transaction("release transactional id lease",
                             [&](cluster::pg_connection& pg) { return leases_.release(pg, id); });
    if (!s.ok()) return failure{s.error()};
    (void)forget(id);
    return ok_v;
}

result<std::optional<meta::stored_txn>, meta::store_error> pg_txn_store::acquire(const std::string& id) {
    int64_t epoch = 0;
    std::optional<meta::stored_txn> state;
    const auto began = std::chrono::steady_clock::now();
    auto s =
        db_.transaction("take transactional id lease", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
            // The row lock waits for the old holder's writes in flight (FOR
            // SHARE); refused while another live broker holds the id.
            auto taken = leases_.take(pg, id);
            if (!taken.ok()) return failure{taken.error()};
            epoch = *taken;
            auto row = pg.exec(k_txn_columns, {to_bytea_hex(id)});
            if (!row.ok()) return failure{row.error()};
            if (!row->rows.empty()) state = txn_of(id, *row);
            return ok_v;
        });
    if (!s.ok()) return failure{s.error()};
    leases_.taken(id, epoch, began);
    return state;
}

result<std::vector<std::string>, meta::store_error> pg_txn_store::unfinished_ids() {
    // txn_state: 1 Ongoing, 2 PrepareCommit, 3 PrepareAbort, 7 PrepareEpochFence.
    auto rows = db_.select("unfinished transactions",
                           "SELECT encode(transactional_id, 'hex') FROM ketch_txns WHERE state IN (1, 2, 3, 7)");
    if (!rows.ok()) return failure{rows.error()};
    std::vector<std::string> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) out.push_back(from_hex(rows->at(i, 0)));
    return out;
}

status<meta::store_error> pg_txn_store::put_txn(const meta::stored_txn& t) {
    return db_.transaction("put transaction", [&](cluster::pg_connection& pg) {
        return leases_.fenced_exec(
            pg, t.transactional_id,
            "INSERT INTO ketch_txns (transactional_id, producer_id, previous_producer_id, producer_epoch,"
            " last_producer_epoch, timeout_ms, state, partitions, txn_start_ms, last_update_ms, next_producer_id,"
            " client_txn_version) VALUES ($1::bytea, $2, $3, $4, $5, $6, $7, $8::bytea, $9, $10, $11, $12)"
            " ON CONFLICT (transactional_id) DO UPDATE SET producer_id = EXCLUDED.producer_id,"
            " previous_producer_id = EXCLUDED.previous_producer_id, producer_epoch = EXCLUDED.producer_epoch,"
            " last_producer_epoch = EXCLUDED.last_producer_epoch, timeout_ms = EXCLUDED.timeout_ms,"
            " state = EXCLUDED.state, partitions = EXCLUDED.partitions, txn_start_ms = EXCLUDED.txn_start_ms,"
            " last_update_ms = EXCLUDED.last_update_ms, next_producer_id = EXCLUDED.next_producer_id,"
            " client_txn_version = EXCLUDED.client_txn_version",
            {to_bytea_hex(t.transactional_id), std::to_string(t.producer_id), std::to_string(t.previous_producer_id),
             std::to_string(t.producer_epoch), std::to_string(t.last_producer_epoch), std::to_string(t.timeout_ms),
             std::to_string(t.state), to_bytea_hex(encode_txn_partitions(t.partitions)), std::to_string(t.txn_start_ms),
             std::to_string(t.last_update_ms), std::to_string(t.next_producer_id),
             std::to_string(t.client_txn_version)});
    });
}

status<meta::store_error> pg_txn_store::delete_txn(const std::string& id) {
    return db_.transaction("delete transaction", [&](cluster::pg_connection& pg) {
        return leases_.fenced_exec(pg, id, "DELETE FROM ketch_txns WHERE transactional_id = $1::bytea",
                                   {to_bytea_hex(id)});
    });
}

// The group coordinator's fence for pending offsets (docs/design/cluster.md
// "consumer groups"): each group's lease still names this broker (its
// process: a take-back by this same broker reloaded the group here), FOR
// SHARE, so a broker that took the group meanwhile has either read these
// rows at its take or waits for this transaction and reads them then.
status<cluster::pg_error> pg_txn_store::check_group_leases(cluster::pg_connection& pg,
                                                           std::span<const meta::pending_txn_offset> offsets) {
    const lease_holder who = leases_.holder();
    if (!who.named) return ok_v;  // not fenced (a store used without membership)
    std::set<std::string> groups;
    for (const auto& p : offsets) groups.insert(p.offset.group);
    for (const auto& g : groups) {
        auto r = pg.exec(
            "SELECT 1 FROM ketch_group_leases WHERE group_id = $1::bytea AND node_id = $2 AND incarnation = $3"
            " FOR SHARE",
            {to_bytea_hex(g), who.node, who.incarnation});
        if (!r.ok()) return failure{r.error()};
        if (r->rows.empty()) {
            spdlog::info("cluster: group '{}': another broker took its lease; pending offsets refused", g);
            return failure{cluster::pg_error{"the group's lease moved to another broker", "", false}};
        }
    }
    return ok_v;
}

status<meta::store_error> pg_txn_store::put_pending_offsets(std::span<const meta::pending_txn_offset> offsets) {
    return db_.transaction("pending offsets", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        if (auto f = check_group_leases(pg, offsets); !f.ok()) return f;
        for (const auto& p : offsets) {
            const auto& o = p.offset;
            auto r = pg.exec(
                "INSERT INTO ketch_txn_offsets (producer_id, group_id, topic, partition, committed_offset,"
                " leader_epoch, metadata, commit_ms, expire_ms) VALUES ($1, $2::bytea, $3::bytea, $4, $5, $6,"
                " $7::bytea, $8, $9) ON CONFLICT (producer_id, group_id, topic, partition) DO UPDATE SET"
                " committed_offset = EXCLUDED.committed_offset, leader_epoch = EXCLUDED.leader_epoch,"
                " metadata = EXCLUDED.metadata, commit_ms = EXCLUDED.commit_ms, expire_ms = EXCLUDED.expire_ms",
                {std::to_string(p.producer_id), to_bytea_hex(o.group), to_bytea_hex(o.topic),
                 std::to_string(o.partition), std::to_string(o.offset), std::to_string(o.leader_epoch),
                 to_bytea_hex(o.metadata), std::to_string(o.commit_timestamp_ms),
                 o.expire_timestamp_ms ? cluster::pg_params::value_type(std::to_string(*o.expire_timestamp_ms))
                                       : std::nullopt});
            if (!r.ok()) return failure{r.error()};
        }
        return ok_v;
    });
}

status<meta::store_error> pg_txn_store::delete_pending_offsets(int64_t producer_id) {
    return db_.transaction("pending offsets", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        auto r = pg.exec("DELETE FROM ketch_txn_offsets WHERE producer_id = $1", {std::to_string(producer_id)});
        if (!r.ok()) return failure{r.error()};
        return ok_v;
    });
}

status<meta::store_error> pg_txn_store::complete_offsets(int64_t producer_id, bool commit) {
    return db_.transaction("complete offsets", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        const std::string pid = std::to_string(producer_id);
        if (commit) {
            auto r = pg.exec(
                "INSERT INTO ketch_group_offsets (group_id, topic, partition, committed_offset, leader_epoch,"
                " metadata, commit_ms, expire_ms) SELECT group_id, topic, partition, committed_offset, leader_epoch,"
                " metadata, commit_ms, expire_ms FROM ketch_txn_offsets WHERE producer_id = $1"
                " ON CONFLICT (group_id, topic, partition) DO UPDATE SET committed_offset = EXCLUDED.committed_offset,"
                " leader_epoch = EXCLUDED.leader_epoch, metadata = EXCLUDED.metadata,"
                " commit_ms = EXCLUDED.commit_ms, expire_ms = EXCLUDED.expire_ms",
                {pid});
            if (!r.ok()) return failure{r.error()};
        }
        auto d = pg.exec("DELETE FROM ketch_txn_offsets WHERE producer_id = $1", {pid});
        if (!d.ok()) return failure{d.error()};
        return notify_commit(pg, ("txn-end:" + pid + (commit ? ":1" : ":0")).c_str());
    });
}

}  // namespace ketch::shared
