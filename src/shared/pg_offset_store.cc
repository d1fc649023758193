#include "shared/pg_offset_store.h"

namespace ketch::shared {

namespace {

std::string opt_int(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string(); }

// {'\x..', '\x..'} as one bytea[] parameter.
std::string bytea_array(std::span<const std::string> items) {
    std::string out = "{";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        out += "\"\\\\x";
        out += to_bytea_hex(items[i]).substr(2);
        out += '"';
    }
    out += '}';
    return out;
}

// Columns 1..7 of an offset row (topic, partition, offset, leader epoch,
// metadata, commit and expire times), as k_offset_columns and the pending
// transactional offsets select them; column 0 is the group or the producer.
meta::stored_offset offset_at(const cluster::pg_rows& rows, size_t i) {
    meta::stored_offset o;
    o.topic = from_hex(rows.at(i, 1));
    o.partition = std::stoi(rows.at(i, 2));
    o.offset = std::stoll(rows.at(i, 3));
    o.leader_epoch = std::stoi(rows.at(i, 4));
    o.metadata = from_hex(rows.at(i, 5));
    o.commit_timestamp_ms = std::stoll(rows.at(i, 6));
    if (rows.rows[i][7]) o.expire_timestamp_ms = std::stoll(*rows.rows[i][7]);
    return o;
}

constexpr const char* k_offset_columns =
    "SELECT encode(group_id, 'hex'), encode(topic, 'hex'), partition, committed_offset, leader_epoch,"
    " encode(metadata, 'hex'), commit_ms, expire_ms FROM ketch_group_offsets";
constexpr const char* k_group_columns =
    "SELECT encode(group_id, 'hex'), encode(protocol_type, 'hex'), generation, empty_since_ms,"
    " encode(state, 'hex') FROM ketch_groups";

}  // namespace

result<std::vector<meta::stored_offset>, cluster::pg_error> pg_offset_store::offsets_in(
    cluster::pg_connection& pg, const std::string& where, const cluster::pg_params& params) {
    auto rows = pg.exec(std::string(k_offset_columns) + where, params);
    if (!rows.ok()) return failure{rows.error()};
    return rows_as(*rows, [](const cluster::pg_rows& r, size_t i) {
        meta::stored_offset o = offset_at(r, i);
        o.group = from_hex(r.at(i, 0));
        return o;
    });
}

result<std::vector<meta::stored_offset>, meta::store_error> pg_offset_store::offsets_where(
    const std::string& where, const cluster::pg_params& params) {
    return db_.query("load offsets", [&](cluster::pg_connection& pg) { return offsets_in(pg, where, params); });
}

result<std::vector<meta::stored_group>, cluster::pg_error> pg_offset_store::groups_in(
    cluster::pg_connection& pg, const std::string& where, const cluster::pg_params& params) {
    auto rows = pg.exec(std::string(k_group_columns) + where, params);
    if (!rows.ok()) return failure{rows.error()};
    return rows_as(*rows, [](const cluster::pg_rows& r, size_t i) {
        meta::stored_group g;
        g.group = from_hex(r.at(i, 0));
        g.protocol_type = from_hex(r.at(i, 1));
        g.generation = std::stoi(r.at(i, 2));
        if (r.rows[i][3]) g.empty_since_ms = std::stoll(*r.rows[i][3]);
        g.state = from_hex(r.at(i, 4));
        return g;
    });
}

result<std::vector<meta::stored_group>, meta::store_error> pg_offset_store::groups_where(
    const std::string& where, const cluster::pg_params& params) {
    return db_.query("load groups", [&](cluster::pg_connection& pg) { return groups_in(pg, where, params); });
}

result<std::vector<meta::stored_offset>, meta::store_error> pg_offset_store::load_offsets() {
    if (leased_) return std::vector<meta::stored_offset>{};  // read when the lease is taken
    return offsets_where("", {});
}

result<std::vector<meta::stored_group>, meta::store_error> pg_offset_store::load_groups() {
    if (leased_) return std::vector<meta::stored_group>{};
    return groups_where("", {});
}

result<std::vector<meta::stored_offset>, meta::store_error> pg_offset_store::load_offsets_of(
    std::span<const std::string> groups) {
    return offsets_where(" WHERE group_id = ANY($1::bytea[])", {bytea_array(groups)});
}

result<std::vector<meta::stored_group>, meta::store_error> pg_offset_store::load_groups_of(
    std::span<const std::string> groups) {
    return groups_where(" WHERE group_id = ANY($1::bytea[])", {bytea_array(groups)});
}

result<std::vector<meta::stored_offset>, meta::store_error> pg_offset_store::pending_txn_keys(int64_t producer_id) {
    auto rows = db_.select("pending offsets",
                           "SELECT encode(group_id, 'hex'), encode(topic, 'hex'), partition FROM ketch_txn_offsets"
                           " WHERE producer_id = $1",
                           {std::to_string(producer_id)});
    if (!rows.ok()) return failure{rows.error()};
    std::vector<meta::stored_offset> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        meta::stored_offset o;
        o.group = from_hex(rows->at(i, 0));
        o.topic = from_hex(rows->at(i, 1));
        o.partition = std::stoi(rows->at(i, 2));
        out.push_back(std::move(o));
    }
    return out;
}

result<std::vector<std::string>, meta::store_error> pg_offset_store::group_ids() {
    auto rows = db_.select("group ids",
                           "SELECT encode(group_id, 'hex') FROM ketch_groups UNION SELECT DISTINCT "
                           "encode(group_id, 'hex') FROM ketch_group_offsets");
    if (!rows.ok()) return failure{rows.error()};
    std::vector<std::string> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) out.push_back(from_hex(rows->at(i, 0)));
    return out;
}

status<meta::store_error> pg_offset_store::commit_offsets(std::span<const meta::stored_offset> offsets) {
    return db_.transaction("commit offsets", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        std::set<std::string> groups;
        for (const auto& o : offsets) groups.insert(o.group);
        for (const auto& g : groups)
            if (auto f = leases_.check(pg, g); !f.ok()) return f;
        for (const auto& o : offsets) {
            auto r = pg.exec(
                "INSERT INTO ketch_group_offsets (group_id, topic, partition, committed_offset, leader_epoch,"
                " metadata, commit_ms, expire_ms) VALUES ($1::bytea, $2::bytea, $3, $4, $5, $6::bytea, $7, $8)"
                " ON CONFLICT (group_id, topic, partition) DO UPDATE SET committed_offset = EXCLUDED.committed_offset,"
                " leader_epoch = EXCLUDED.leader_epoch, metadata = EXCLUDED.metadata,"
                " commit_ms = EXCLUDED.commit_ms, expire_ms = EXCLUDED.expire_ms",
                {to_bytea_hex(o.group), to_bytea_hex(o.topic), std::to_string(o.partition), std::to_string(o.offset),
                 std::to_string(o.leader_epoch), to_bytea_hex(o.metadata), std::to_string(o.commit_timestamp_ms),
                 o.expire_timestamp_ms ? cluster::pg_params::value_type(opt_int(o.expire_timestamp_ms))
                                       : std::nullopt});
            if (!r.ok()) return failure{r.error()};
        }
        return ok_v;
    });
}

status<meta::store_error> pg_offset_store::delete_offsets(const std::string& group,
                                                          std::span<const meta::offset_key> keys) {
    return db_.transaction("delete offsets", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        if (auto f = leases_.check(pg, group); !f.ok()) return f;
        for (const auto& k : keys) {
            auto r = pg.exec(
                "DELETE FROM ketch_group_offsets WHERE group_id = $1::bytea AND topic = $2::bytea AND partition = $3",
                {to_bytea_hex(group), to_bytea_hex(k.topic), std::to_string(k.partition)});
            if (!r.ok()) return failure{r.error()};
        }
        return ok_v;
    });
}

status<meta::store_error> pg_offset_store::delete_groups(std::span<const std::string> groups) {
    return db_.transaction("delete groups", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        for (const auto& g : groups)
            if (auto f = leases_.check(pg, g); !f.ok()) return f;
        const std::string ids = bytea_array(groups);
        if (auto r = pg.exec("DELETE FROM ketch_group_offsets WHERE group_id = ANY($1::bytea[])", {ids}); !r.ok())
            return failure{r.error()};
        if (auto r = pg.exec("DELETE FROM ketch_groups WHERE group_id = ANY($1::bytea[])", {ids}); !r.ok())
            return failure{r.error()};
        return ok_v;
    });
}

status<meta::store_error> pg_offset_store::put_group(const meta::stored_group& g) {
    return db_.transaction("put group", [&](cluster::pg_connection& pg) {
        return leases_.fenced_exec(
            pg, g.group,
            "INSERT INTO ketch_groups (group_id, protocol_type, generation, empty_since_ms, state)"
            " VALUES ($1::bytea, $2::bytea, $3, $4, $5::bytea)"
            " ON CONFLICT (group_id) DO UPDATE SET protocol_type = EXCLUDED.protocol_type,"
            " generation = EXCLUDED.generation, empty_since_ms = EXCLUDED.empty_since_ms, state = EXCLUDED.state"
            " WHERE EXCLUDED.generation >= ketch_groups.generation",
            {to_bytea_hex(g.group), to_bytea_hex(g.protocol_type), std::to_string(g.generation),
             g.empty_since_ms ? cluster::pg_params::value_type(opt_int(g.empty_since_ms)) : std::nullopt,
             to_bytea_hex(g.state)});
    });
}

result<std::vector<meta::pending_txn_offset>, cluster::pg_error> pg_offset_store::pending_in(cluster::pg_connection& pg,
                                                                                             const std::string& group) {
    auto rows = pg.exec(
        "SELECT producer_id, encode(topic, 'hex'), partition, committed_offset, leader_epoch, encode(metadata, 'hex'),"
        " commit_ms, expire_ms FROM ketch_txn_offsets WHERE group_id = $1::bytea",
        {to_bytea_hex(group)});
    if (!rows.ok()) return failure{rows.error()};
    std::vector<meta::pending_txn_offset> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        meta::pending_txn_offset p;
        p.producer_id = std::stoll(rows->at(i, 0));
        p.offset = offset_at(*rows, i);
        p.offset.group = group;
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace ketch::shared
