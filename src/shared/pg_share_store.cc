#include "shared/pg_share_store.h"

#include <set>

#include <spdlog/spdlog.h>

namespace ketch::shared {

namespace {

void put_be(std::string& out, uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(char((v >> (8 * i)) & 0xff));
}

uint64_t get_be(const std::string& in, size_t pos, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | uint8_t(in[pos + size_t(i)]);
    return v;
}

constexpr size_t k_run_bytes = 8 + 8 + 1 + 2;

const char* k_row_columns =
    "SELECT encode(group_id, 'hex'), topic_id, partition, start_offset, encode(batches, 'hex') FROM ketch_share_state";

result<std::vector<meta::stored_share_partition>, cluster::pg_error> rows_of(const cluster::pg_rows& r) {
    std::vector<meta::stored_share_partition> out;
    for (size_t i = 0; i < r.rows.size(); ++i) {
        auto& row = out.emplace_back();
        row.group = from_hex(r.at(i, 0));
        auto id = uuid::from_base64(r.at(i, 1));
        auto runs = unpack_batches(from_hex(r.at(i, 4)));
        if (!id || !runs) return failure{cluster::pg_error{"ketch_share_state: a row that does not parse", "", false}};
        row.topic_id = *id;
        row.partition = std::stoi(r.at(i, 2));
        row.start_offset = std::stoll(r.at(i, 3));
        row.batches = std::move(*runs);
    }
    return out;
}

}  // namespace

std::string pack_batches(const std::vector<meta::stored_share_batch>& batches) {
    std::string out;
    out.reserve(batches.size() * k_run_bytes);
    for (auto& b : batches) {
        put_be(out, uint64_t(b.first_offset), 8);
        put_be(out, uint64_t(b.last_offset), 8);
        put_be(out, uint8_t(b.state), 1);
        put_be(out, uint16_t(b.delivery_count), 2);
    }
    return out;
}

std::optional<std::vector<meta::stored_share_batch>> unpack_batches(const std::string& bytes) {
    if (bytes.size() % k_run_bytes != 0) return std::nullopt;
    std::vector<meta::stored_share_batch> out;
    for (size_t pos = 0; pos < bytes.size(); pos += k_run_bytes)
        out.push_back({int64_t(get_be(bytes, pos, 8)), int64_t(get_be(bytes, pos + 8, 8)),
                       int8_t(get_be(bytes, pos + 16, 1)), int16_t(get_be(bytes, pos + 17, 2))});
    return out;
}

result<std::vector<meta::stored_share_partition>, meta::store_error> pg_share_store::take(const uuid& topic_id,
                                                                                          int32_t partition) {
    const std::string topic = topic_id.to_base64(), part = std::to_string(partition);
    int64_t epoch = 0;
    std::vector<meta::stored_share_partition> out;
    const auto began = std::chrono::steady_clock::now();
    auto s =
        db_.transaction("take share-partition lease", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
            // The row lock waits for a put in flight under the old lease (it
            // holds the row FOR SHARE): the read below sees what it wrote.
            auto taken = leases_.take(pg, {topic_id, partition});
            if (!taken.ok()) return failure{taken.error()};
            epoch = *taken;
            auto rows = pg.exec(std::string(k_row_columns) + " WHERE topic_id = $1 AND partition = $2", {topic, part});
            if (!rows.ok()) return failure{rows.error()};
            auto parsed = rows_of(*rows);
            if (!parsed.ok()) return failure{parsed.error()};
            out = std::move(*parsed);
            return ok_v;
        });
    if (!s.ok()) return failure{s.error()};
    leases_.taken({topic_id, partition}, epoch, began);
    spdlog::info("cluster: share-partition {}:{} taken (lease epoch {}), {} group(s) read from PostgreSQL", topic,
                 partition, epoch, out.size());
    return out;
}

status<meta::store_error> pg_share_store::put(std::span<const meta::stored_share_partition> parts) {
    std::set<key> keys;
    for (auto& p : parts) keys.insert({p.topic_id, p.partition});
    auto s =
        db_.transaction("write share-partition state", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
            for (auto& k : keys)
                if (auto f = leases_.check(pg, k); !f.ok()) return f;
            for (auto& p : parts) {
                auto r = pg.exec(
                    "INSERT INTO ketch_share_state (topic_id, partition, group_id, start_offset, batches, lease_epoch)"
                    " VALUES ($1, $2, $3::bytea, $4, $5::bytea, (SELECT epoch FROM ketch_share_leases WHERE topic_id = "
                    "$1"
                    " AND partition = $2)) ON CONFLICT (topic_id, partition, group_id) DO UPDATE SET"
                    " start_offset = EXCLUDED.start_offset, batches = EXCLUDED.batches, lease_epoch = "
                    "EXCLUDED.lease_epoch",
                    {p.topic_id.to_base64(), std::to_string(p.partition), to_bytea_hex(p.group),
                     std::to_string(p.start_offset), to_bytea_hex(pack_batches(p.batches))});
                if (!r.ok()) return failure{r.error()};
            }
            return ok_v;
        });
    if (s.ok()) return ok_v;
    // Whatever failed (the lease moved, PostgreSQL unreachable), what this
    // broker holds of these partitions is no longer known to be what is
    // stored: their leases are forgotten, and taken again (state read) at
    // the next request if this broker still leads them.
    for (auto& k : keys) leases_.forget(k);
    return failure{s.error()};
}

status<meta::store_error> pg_share_store::remove(const std::string& group, const uuid& topic_id, int32_t partition) {
    return db_.transaction(
        "remove share-partition state", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
            auto r =
                pg.exec("DELETE FROM ketch_share_state WHERE topic_id = $1 AND partition = $2 AND group_id = $3::bytea",
                        {topic_id.to_base64(), std::to_string(partition), to_bytea_hex(group)});
            if (!r.ok()) return failure{r.error()};
            return ok_v;
        });
}

result<std::vector<meta::stored_share_partition>, meta::store_error> pg_share_store::load_group(
    const std::string& group) {
    return db_.query("read share group state", [&](cluster::pg_connection& pg) {
        auto r = pg.exec(std::string(k_row_columns) + " WHERE group_id = $1::bytea", {to_bytea_hex(group)});
        if (!r.ok()) return result<std::vector<meta::stored_share_partition>, cluster::pg_error>(failure{r.error()});
        return rows_of(*r);
    });
}

status<meta::store_error> pg_share_store::replace_taken(const std::string& group, const uuid& topic_id,
                                                        int32_t partition, std::optional<int64_t> start_offset) {
    const std::string topic = topic_id.to_base64(), part = std::to_string(partition), id = to_bytea_hex(group);
    auto replace = [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        // The leader's writes are refused from here on (as a take).
        if (auto taken = leases_.take(pg, {topic_id, partition}); !taken.ok()) return failure{taken.error()};
        auto r = start_offset ? pg.exec(
                                    "INSERT INTO ketch_share_state (topic_id, partition, group_id, start_offset,"
                                    " batches, lease_epoch) VALUES ($1, $2, $3::bytea, $4, ''::bytea, 0)"
                                    " ON CONFLICT (topic_id, partition, group_id) DO UPDATE SET"
                                    " start_offset = EXCLUDED.start_offset, batches = EXCLUDED.batches",
                                    {topic, part, id, std::to_string(*start_offset)})
                              : pg.exec(
                                    "DELETE FROM ketch_share_state WHERE topic_id = $1 AND partition = $2"
                                    " AND group_id = $3::bytea",
                                    {topic, part, id});
        if (!r.ok()) return failure{r.error()};
        return ok_v;
    };
    auto s = db_.transaction("set share-partition state", k_share_leases_changed, replace);
    forget(topic_id, partition);  // taken, not kept: the leader takes it again
    return s;
}

std::vector<std::pair<uuid, int32_t>> pg_share_store::moved_leases() {
    const std::map<key, int64_t> held = leases_.held();
    if (held.empty()) return {};
    const lease_holder who = leases_.holder();
    auto rows = db_.select("read share-partition leases",
                           "SELECT topic_id, partition, epoch FROM ketch_share_leases WHERE node_id = $1 AND "
                           "incarnation = $2",
                           {who.node, who.incarnation});
    if (!rows.ok()) return {};  // read again at the next notice; a write finds out meanwhile
    std::map<key, int64_t> now;
    for (size_t i = 0; i < rows->rows.size(); ++i)
        if (auto id = uuid::from_base64(rows->at(i, 0)))
            now[{*id, std::stoi(rows->at(i, 1))}] = std::stoll(rows->at(i, 2));
    std::vector<key> out;
    for (auto& [k, epoch] : held)
        if (auto it = now.find(k); it == now.end() || it->second != epoch) out.push_back(k);
    return out;
}

}  // namespace ketch::shared
