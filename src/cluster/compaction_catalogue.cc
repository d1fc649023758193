#include "cluster/compaction_catalogue.h"

#include <algorithm>

#include "cluster/catalogue_params.h"

namespace ketch::cluster {

namespace {

// A PostgreSQL array literal: {"a","b"} (object keys and numbers: no quote or backslash).
std::string array_of(const std::vector<std::string>& values) {
    std::string out = "{";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ",\"" : "\"") + values[i] + "\"";
    return out + "}";
}

// The WHERE of the rows of `old_rows` still as read; $1 $2 the partition, $3 $4 $5 their arrays.
constexpr const char* k_as_read =
    "b.topic_id = $1 AND b.partition = $2 AND b.base_offset = u.base AND b.object_key = u.k AND "
    "b.byte_offset = u.o";

pg_params old_rows_params(const partition_key& tp, const std::vector<indexed_batch>& rows) {
    std::vector<std::string> base, keys, offs;
    for (auto& r : rows) {
        base.push_back(str(r.base_offset));
        keys.push_back(r.object_key);
        offs.push_back(str(int64_t(r.byte_offset)));
    }
    return with(key(tp), {array_of(base), array_of(keys), array_of(offs)});
}

template <typename T>
result<T, pg_error> rolled_back(pg_connection& c, pg_error e) {
    (void)c.run("ROLLBACK");
    return failure{std::move(e)};
}

// Inside swap_compacted's transaction: the old rows out, the new object and its rows in.
result<bool, pg_error> replace_rows(pg_connection& c, const partition_key& tp,
                                    const std::vector<indexed_batch>& old_rows, const std::string& object_key,
                                    uint64_t size_bytes, const std::vector<compacted_row>& kept) {
    auto lock = c.exec(
        "SELECT log_start_offset FROM ketch_partitions WHERE topic_id = $1 AND partition = $2 FOR UPDATE", key(tp));
    if (!lock.ok()) return failure{lock.error()};
    if (lock->rows.empty()) return false;
    const std::string log_start = lock->at(0, 0);
    const pg_params old = old_rows_params(tp, old_rows);
    auto same = c.exec(std::string("SELECT count(*) FROM ketch_batches b, unnest($3::bigint[], $4::text[], "
                                   "$5::bigint[]) AS u(base, k, o) WHERE ") +
                           k_as_read,
                       old);
    if (!same.ok()) return failure{same.error()};
    if (std::stoll(same->at(0, 0)) != int64_t(old_rows.size())) return false;
    // The old objects noted for the garbage collector (ketch_gc_candidates) and their rows' bytes taken
    // from the partition's stored_bytes (the kept rows' added below), in this transaction.
    auto del = c.exec(std::string("WITH gone AS (DELETE FROM ketch_batches b USING unnest($3::bigint[], $4::text[], "
                                  "$5::bigint[]) AS u(base, k, o) WHERE ") +
                          k_as_read + " RETURNING b.object_key, b.byte_length), " + k_freed +
                          " INSERT INTO ketch_gc_candidates (object_key) SELECT DISTINCT object_key FROM gone",
                      old);
    if (!del.ok()) return failure{del.error()};
    if (object_key.empty() || kept.empty()) return true;
    auto obj = c.exec("INSERT INTO ketch_objects (object_key, size_bytes, node_id) VALUES ($1, $2, -1)",
                      {object_key, str(int64_t(size_bytes))});
    if (!obj.ok()) return failure{obj.error()};
    std::vector<std::string> b, l, o, n, m;
    for (auto& k : kept) {
        b.push_back(str(k.base_offset));
        l.push_back(str(k.last_offset));
        o.push_back(str(int64_t(k.byte_offset)));
        n.push_back(str(k.byte_length));
        m.push_back(str(k.max_timestamp));
    }
    // Never a row wholly below the log start (the lock makes it the current one).
    auto ins = c.exec(
        "WITH added AS (INSERT INTO ketch_batches (topic_id, partition, base_offset, last_offset, object_key, "
        "byte_offset, byte_length, max_timestamp) SELECT $1, $2, r.b, r.l, $3, r.o, r.n, r.m FROM unnest("
        "$4::bigint[], $5::bigint[], $6::bigint[], $7::int[], $8::bigint[]) AS r(b, l, o, n, m) WHERE r.l >= $9 "
        "RETURNING byte_length) UPDATE ketch_partitions SET stored_bytes = stored_bytes + (SELECT "
        "coalesce(sum(byte_length::bigint), 0) FROM added) WHERE topic_id = $1 AND partition = $2",
        with(key(tp), {object_key, array_of(b), array_of(l), array_of(o), array_of(n), array_of(m), log_start}));
    if (!ins.ok()) return failure{ins.error()};
    return true;
}

}  // namespace

result<std::optional<cleanable_range>, pg_error> cleanable_offsets(pg_connection& c, const partition_key& tp,
                                                                   int64_t min_compaction_lag_ms, int64_t now_ms) {
    auto offsets = find_offsets(c, tp);
    if (!offsets.ok()) return failure{offsets.error()};
    if (!*offsets) return std::optional<cleanable_range>{};
    const partition_offsets& o = **offsets;
    cleanable_range r;
    const int64_t start = o.log_start_offset, hwm = o.high_watermark, checkpoint = o.first_dirty_offset;
    r.log_start_offset = start;
    // LogCleanerManager.cleanableOffsets: a checkpoint outside the log means the whole log is dirty.
    r.first_dirty = checkpoint < start || checkpoint > hwm ? start : checkpoint;
    // Nothing at or past the last stable offset is cleanable (an open transaction's records may yet abort).
    int64_t uncleanable = o.last_stable_offset();
    if (min_compaction_lag_ms > 0) {
        // The first dirty batch younger than the lag (without timestamps: its object's commit time).
        auto young = c.exec(
            "SELECT min(base_offset) FROM ketch_batches b WHERE topic_id = $1 AND partition = $2 AND "
            "base_offset >= $3 AND CASE WHEN max_timestamp >= 0 THEN max_timestamp ELSE (SELECT (extract(epoch "
            "FROM o.committed_at) * 1000)::bigint FROM ketch_objects o WHERE o.object_key = b.object_key) END > $4",
            with(key(tp), {str(r.first_dirty), str(now_ms - min_compaction_lag_ms)}));
        if (!young.ok()) return failure{young.error()};
        if (!young->rows.empty() && !young->at(0, 0).empty())
            uncleanable = std::min<int64_t>(uncleanable, std::stoll(young->at(0, 0)));
    }
    r.first_uncleanable = std::max(r.first_dirty, uncleanable);
    auto sizes = c.exec(
        "SELECT coalesce(sum(byte_length::bigint) FILTER (WHERE base_offset < $3), 0), coalesce(sum(byte_length::"
        "bigint) FILTER (WHERE base_offset >= $3), 0), coalesce(min(max_timestamp) FILTER (WHERE base_offset >= $3 "
        "AND max_timestamp >= 0), -1) FROM ketch_batches WHERE topic_id = $1 AND partition = $2 AND "
        "last_offset >= $4 AND base_offset < $5",
        with(key(tp), {str(r.first_dirty), str(start), str(r.first_uncleanable)}));
    if (!sizes.ok()) return failure{sizes.error()};
    r.clean_bytes = std::stoull(sizes->at(0, 0));
    r.dirty_bytes = std::stoull(sizes->at(0, 1));
    r.oldest_dirty_timestamp = std::stoll(sizes->at(0, 2));
    return std::optional<cleanable_range>{r};
}

result<std::vector<indexed_batch>, pg_error> batches_between(pg_connection& c, const partition_key& tp, int64_t from,
                                                             int64_t to, int64_t after, size_t limit) {
    auto rows = c.exec(
        "SELECT base_offset, last_offset, object_key, byte_offset, byte_length FROM ketch_batches WHERE topic_id = "
        "$1 AND partition = $2 AND last_offset >= $3 AND base_offset < $4 AND base_offset > $5 ORDER BY "
        "base_offset LIMIT $6",
        with(key(tp), {str(from), str(to), str(after), str(int64_t(limit))}));
    if (!rows.ok()) return failure{rows.error()};
    std::vector<indexed_batch> out;
    for (size_t i = 0; i < rows->rows.size(); ++i)
        out.push_back({std::stoll(rows->at(i, 0)), std::stoll(rows->at(i, 1)), rows->at(i, 2),
                       std::stoull(rows->at(i, 3)), uint32_t(std::stoul(rows->at(i, 4)))});
    return out;
}

result<std::vector<producer_last>, pg_error> producers_last(pg_connection& c, const partition_key& tp) {
    // A marker of a newer epoch is remembered with last_seq -1 (cluster/commit_flush.cc).
    auto rows = c.exec(
        "SELECT DISTINCT ON (producer_id) producer_id, producer_epoch, last_seq, last_offset FROM "
        "ketch_producer_batches WHERE topic_id = $1 AND partition = $2 ORDER BY producer_id, base_offset DESC",
        key(tp));
    if (!rows.ok()) return failure{rows.error()};
    std::vector<producer_last> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        producer_last p{std::stoll(rows->at(i, 0)), int16_t(std::stoi(rows->at(i, 1))), std::nullopt};
        if (std::stoll(rows->at(i, 2)) >= 0) p.last_data_offset = std::stoll(rows->at(i, 3));
        out.push_back(p);
    }
    return out;
}

result<bool, pg_error> swap_compacted(pg_connection& c, const partition_key& tp,
                                      const std::vector<indexed_batch>& old_rows, const std::string& object_key,
                                      uint64_t size_bytes, const std::vector<compacted_row>& kept) {
    if (auto s = c.run("BEGIN"); !s.ok()) return failure{s.error()};
    auto r = replace_rows(c, tp, old_rows, object_key, size_bytes, kept);
    if (!r.ok()) return rolled_back<bool>(c, r.error());
    if (!*r) {
        (void)c.run("ROLLBACK");
        return false;
    }
    if (auto s = c.run("COMMIT"); !s.ok()) return failure{s.error()};
    return true;
}

status<pg_error> set_first_dirty(pg_connection& c, const partition_key& tp, int64_t offset) {
    auto u = c.exec("UPDATE ketch_partitions SET first_dirty_offset = $3 WHERE topic_id = $1 AND partition = $2",
                    with(key(tp), {str(offset)}));
    if (!u.ok()) return failure{u.error()};
    return ok_v;
}

}  // namespace ketch::cluster
