#include "cluster/retention.h"

#include <algorithm>

#include "cluster/catalogue_params.h"

namespace ketch::cluster {

namespace {

// Inside the caller's transaction, the partition's row locked: the log start
// becomes `target` (if further), the rows below it go, the brokers hear of it.
result<retention_outcome, pg_error> advance(pg_connection& c, const partition_key& tp, int64_t start, int64_t target) {
    retention_outcome out{std::max(start, target), target > start, 0};
    if (out.moved) {
        auto u = c.exec("UPDATE ketch_partitions SET log_start_offset = $3 WHERE topic_id = $1 AND partition = $2",
                        with(key(tp), {str(out.log_start_offset)}));
        if (!u.ok()) return failure{u.error()};
    }
    // Their objects noted for the garbage collector (ketch_gc_candidates) and their bytes taken from the
    // partition's stored_bytes, in this transaction.
    auto d = c.exec(
        std::string("WITH gone AS (DELETE FROM ketch_batches WHERE topic_id = $1 AND partition = $2 AND "
                    "last_offset < $3 RETURNING object_key, byte_length), noted AS (INSERT INTO ketch_gc_candidates "
                    "(object_key) SELECT DISTINCT object_key FROM gone), ") +
            k_freed + " SELECT count(*) FROM gone",
        with(key(tp), {str(out.log_start_offset)}));
    if (!d.ok()) return failure{d.error()};
    out.batches_dropped = std::stoll(d->at(0, 0));
    // Aborted ranges wholly below the log start can no longer be fetched.
    auto a = c.exec("DELETE FROM ketch_aborted_txns WHERE topic_id = $1 AND partition = $2 AND last_offset < $3",
                    with(key(tp), {str(out.log_start_offset)}));
    if (!a.ok()) return failure{a.error()};
    if (out.moved) {
        auto n = c.exec("SELECT pg_notify('ketch_commit', $1)", {std::string(k_log_start_prefix) + tp.topic_id + ":" +
                                                                 str(tp.partition) + ":" + str(out.log_start_offset)});
        if (!n.ok()) return failure{n.error()};
    }
    return out;
}

template <typename Body>
result<retention_outcome, pg_error> in_transaction(pg_connection& c, Body body) {
    if (auto s = c.run("BEGIN"); !s.ok()) return failure{s.error()};
    auto r = body();
    if (!r.ok()) {
        (void)c.run("ROLLBACK");
        return r;
    }
    if (auto s = c.run("COMMIT"); !s.ok()) return failure{s.error()};
    return r;
}

// The first offset to keep by `sql` (one row, one column; NULL: none kept before the high watermark).
result<int64_t, pg_error> first_kept(pg_connection& c, const std::string& sql, const pg_params& p, int64_t hwm) {
    auto r = c.exec(sql, p);
    if (!r.ok()) return failure{r.error()};
    if (r->rows.empty() || !r->rows[0][0]) return hwm;
    return std::stoll(*r->rows[0][0]);
}

}  // namespace

result<retention_outcome, pg_error> move_log_start(pg_connection& c, const partition_key& tp, int64_t offset) {
    return in_transaction(c, [&]() -> result<retention_outcome, pg_error> {
        auto row = c.exec(
            "INSERT INTO ketch_partitions (topic_id, partition) VALUES ($1, $2) ON CONFLICT (topic_id, partition) "
            "DO UPDATE SET log_start_offset = ketch_partitions.log_start_offset "
            "RETURNING log_start_offset, high_watermark",
            key(tp));
        if (!row.ok()) return failure{row.error()};
        const int64_t start = std::stoll(row->at(0, 0)), hwm = std::stoll(row->at(0, 1));
        return advance(c, tp, start, std::min(offset, hwm));
    });
}

result<retention_outcome, pg_error> apply_retention(pg_connection& c, const partition_key& tp,
                                                    const retention_limits& limits, int64_t now_ms) {
    return in_transaction(c, [&]() -> result<retention_outcome, pg_error> {
        auto row = c.exec(
            "SELECT log_start_offset, high_watermark FROM ketch_partitions WHERE topic_id = $1 AND partition = $2 "
            "FOR UPDATE",
            key(tp));
        if (!row.ok()) return failure{row.error()};
        if (row->rows.empty()) return retention_outcome{};
        const int64_t start = std::stoll(row->at(0, 0)), hwm = std::stoll(row->at(0, 1));
        int64_t target = start;
        if (limits.retention_ms >= 0) {
            // The first batch whose newest record is within retention.ms: it and what follows stay.
            // A batch without timestamps counts from its object's commit (Kafka: the segment's mtime).
            auto t = first_kept(c,
                                "SELECT min(base_offset) FROM ketch_batches b WHERE topic_id = $1 AND partition = $2 "
                                "AND last_offset >= $3 AND CASE WHEN max_timestamp >= 0 THEN max_timestamp ELSE "
                                "(SELECT (extract(epoch FROM o.committed_at) * 1000)::bigint FROM ketch_objects o "
                                "WHERE o.object_key = b.object_key) END >= $4",
                                with(key(tp), {str(start), str(now_ms - limits.retention_ms)}), hwm);
            if (!t.ok()) return failure{t.error()};
            target = std::max(target, *t);
        }
        if (limits.retention_bytes >= 0) {
            // Oldest first, a batch goes while what is left is still at least retention.bytes.
            auto s = first_kept(c,
                                "SELECT min(base_offset) FROM (SELECT base_offset, sum(byte_length::bigint) OVER "
                                "(ORDER BY base_offset) AS upto, sum(byte_length::bigint) OVER () AS total "
                                "FROM ketch_batches WHERE topic_id = $1 AND partition = $2 AND last_offset >= $3) b "
                                "WHERE upto > total - $4",
                                with(key(tp), {str(start), str(limits.retention_bytes)}), hwm);
            if (!s.ok()) return failure{s.error()};
            target = std::max(target, *s);
        }
        return advance(c, tp, start, std::min(target, hwm));
    });
}

result<int64_t, pg_error> expire_producers(pg_connection& c, int64_t expiration_ms) {
    // The commit that writes a producer's rows writes all of them again (the
    // partition's row locked), so the newest committed_at is its last commit.
    auto d = c.exec(
        "DELETE FROM ketch_producer_batches b USING (SELECT topic_id, partition, producer_id FROM "
        "ketch_producer_batches GROUP BY topic_id, partition, producer_id HAVING max(committed_at) < now() - "
        "$1::bigint * interval '1 millisecond') e WHERE b.topic_id = e.topic_id AND b.partition = e.partition AND "
        "b.producer_id = e.producer_id AND NOT EXISTS (SELECT 1 FROM ketch_txn_open o WHERE o.topic_id = "
        "b.topic_id AND o.partition = b.partition AND o.producer_id = b.producer_id)",
        {str(expiration_ms)});
    if (!d.ok()) return failure{d.error()};
    return d->affected;
}

}  // namespace ketch::cluster
