// The commit of a flushed object (docs/design/cluster.md, "the commit
// transaction"): one PostgreSQL transaction in a number of round trips that
// does not grow with the batches — the touched partitions' rows locked by
// one statement in a fixed order, every idempotent producer's last batches
// read by one statement, the sequence rules applied in memory, and the
// batch index, the producers' batches and the high watermarks written by
// one statement each (arrays through unnest). Transactional batches and
// markers add their statements (the open transactions and aborted ranges).
#include <map>
#include <optional>
#include <set>

#include "cluster/catalogue.h"
#include "cluster/catalogue_params.h"
#include "cluster/sequence_check.h"

namespace ketch::cluster {

namespace {

// Rows for a statement that unnests one array parameter per column.
class columns {
public:
    explicit columns(size_t n) : cols_(n) {}
    void row(std::initializer_list<std::string> values) {
        size_t i = 0;
        for (auto& v : values) cols_.at(i++).push_back(v);
    }
    bool empty() const { return cols_.front().empty(); }
    pg_params params() const {
        pg_params out;
        for (auto& c : cols_) out.push_back(array_literal(c));
        return out;
    }

private:
    std::vector<std::vector<std::string>> cols_;
};

struct producer_key {
    partition_key tp;
    int64_t producer_id = -1;
    auto operator<=>(const producer_key&) const = default;
};

producer_key producer_of(const staged_batch& b) { return {b.tp, b.producer_id}; }

// One commit's state: the locked partitions' high watermarks as they
// advance, the producers' last batches, and the rows to write at the end.
class commit {
public:
    commit(pg_connection& c, const flushed_object& obj) : c_(c), obj_(obj) {}

    // Locks the rows of the touched partitions in one statement, in a fixed
    // order (so concurrent commits cannot deadlock); `missing`: partitions
    // with no row yet (the caller creates them and starts again).
    status<pg_error> lock_partitions(std::vector<partition_key>& missing) {
        std::set<partition_key> touched;
        for (auto& b : obj_.batches) touched.insert(b.tp);
        columns t(2);
        for (auto& tp : touched) t.row({tp.topic_id, str(tp.partition)});
        // Open transactions of a partition change only under its row lock.
        auto rows = c_.exec(
            "SELECT p.topic_id, p.partition, p.high_watermark, coalesce((SELECT min(o.first_offset) FROM "
            "ketch_txn_open o WHERE o.topic_id = p.topic_id AND o.partition = p.partition), -1) "
            "FROM ketch_partitions p JOIN unnest($1::text[], $2::int[]) AS t(topic_id, partition) "
            "ON p.topic_id = t.topic_id AND p.partition = t.partition "
            "ORDER BY p.topic_id COLLATE \"C\", p.partition FOR UPDATE OF p",
            t.params());
        if (!rows.ok()) return failure{rows.error()};
        for (size_t i = 0; i < rows->rows.size(); ++i) {
            partition_key tp{rows->at(i, 0), std::stoi(rows->at(i, 1))};
            hwm_[tp] = locked_hwm_[tp] = std::stoll(rows->at(i, 2));
            unstable_[tp] = std::stoll(rows->at(i, 3));
        }
        for (auto& tp : touched)
            if (!hwm_.contains(tp)) missing.push_back(tp);
        return ok_v;
    }

    // The last batches of every idempotent producer in the object, one statement.
    status<pg_error> load_producers() {
        columns q(3);
        for (auto& b : obj_.batches)
            if (b.producer_id >= 0 && histories_.try_emplace(producer_of(b)).second)
                q.row({b.tp.topic_id, str(b.tp.partition), str(b.producer_id)});
        if (q.empty()) return ok_v;
        auto rows = c_.exec(
            "SELECT b.topic_id, b.partition, b.producer_id, b.producer_epoch, b.first_seq, b.last_seq, "
            "b.base_offset, b.last_offset FROM ketch_producer_batches b "
            "JOIN unnest($1::text[], $2::int[], $3::bigint[]) AS q(topic_id, partition, producer_id) "
            "ON b.topic_id = q.topic_id AND b.partition = q.partition AND b.producer_id = q.producer_id "
            "ORDER BY b.base_offset",
            q.params());
        if (!rows.ok()) return failure{rows.error()};
        for (size_t i = 0; i < rows->rows.size(); ++i)
            histories_[{{rows->at(i, 0), std::stoi(rows->at(i, 1))}, std::stoll(rows->at(i, 2))}].push_back(
                {int16_t(std::stoi(rows->at(i, 3))), std::stoi(rows->at(i, 4)), std::stoi(rows->at(i, 5)),
                 std::stoll(rows->at(i, 6)), std::stoll(rows->at(i, 7))});
        return ok_v;
    }

    result<batch_outcome, pg_error> apply(const staged_batch& b) {
        if (b.marker >= 0) return end_txn(b);
        if (b.producer_id < 0) return index(b);
        auto& history = histories_[producer_of(b)];
        int32_t last_seq = int32_t((int64_t(b.base_sequence) + b.record_count - 1) % (int64_t(INT32_MAX) + 1));
        auto v = check_sequence(history, b.producer_epoch, b.base_sequence, last_seq);
        if (v.what == sequence_verdict::duplicate)
            return batch_outcome{batch_outcome::duplicate, v.base_offset, v.last_offset};
        if (v.what == sequence_verdict::invalid_producer_epoch)
            return batch_outcome{batch_outcome::invalid_producer_epoch};
        if (v.what == sequence_verdict::out_of_order_sequence)
            return batch_outcome{batch_outcome::out_of_order_sequence};
        auto out = index(b);
        remember(b, b.base_sequence, last_seq, out);
        if (b.transactional)
            if (auto r = open_txn(b, out); !r.ok()) return failure{r.error()};
        return out;
    }

    status<pg_error> finish() {
        if (recorded_) {
            auto o = c_.exec("INSERT INTO ketch_objects (object_key, size_bytes, node_id) VALUES ($1, $2, $3)",
                             {obj_.object_key, str(int64_t(obj_.size_bytes)), str(obj_.node_id)});
            if (!o.ok()) return failure{o.error()};
            auto ins = c_.exec(
                "INSERT INTO ketch_batches (topic_id, partition, base_offset, last_offset, object_key, "
                "byte_offset, byte_length, max_timestamp) SELECT t, p, b, l, $8, o, n, m FROM "
                "unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[], $5::bigint[], $6::int[], "
                "$7::bigint[]) AS r(t, p, b, l, o, n, m)",
                with(index_rows_.params(), {obj_.object_key}));
            if (!ins.ok()) return failure{ins.error()};
        }
        if (auto p = write_producers(); !p.ok()) return p;
        columns up(4);  // every partition with new index rows has a new high watermark
        for (auto& [tp, hwm] : hwm_)
            if (hwm != locked_hwm_[tp]) up.row({tp.topic_id, str(tp.partition), str(hwm), str(indexed_bytes_[tp])});
        if (!up.empty()) {
            auto r = c_.exec(
                "UPDATE ketch_partitions p SET high_watermark = u.h, stored_bytes = p.stored_bytes + u.n FROM "
                "unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[]) AS u(t, pa, h, n) WHERE p.topic_id = u.t "
                "AND p.partition = u.pa",
                up.params());
            if (!r.ok()) return failure{r.error()};
        }
        if (recorded_) {  // fetches parked on other brokers wake up (LISTEN ketch_commit)
            auto n = c_.exec("SELECT pg_notify('ketch_commit', $1)", {obj_.object_key});
            if (!n.ok()) return failure{n.error()};
        }
        return ok_v;
    }

    // The partition's first unstable offset for each outcome, once all are applied.
    void fill_unstable(std::vector<batch_outcome>& outs) const {
        for (size_t i = 0; i < outs.size(); ++i) outs[i].first_unstable = unstable_.at(obj_.batches[i].tp);
    }

private:
    // A transaction's first batch on the partition opens it there (its first
    // offset bounds the LSO until its marker).
    status<pg_error> open_txn(const staged_batch& b, const batch_outcome& out) {
        auto ins = c_.exec(
            "INSERT INTO ketch_txn_open (topic_id, partition, producer_id, first_offset) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            with(key(b.tp), {str(b.producer_id), str(out.base_offset)}));
        if (!ins.ok()) return failure{ins.error()};
        if (unstable_[b.tp] < 0) unstable_[b.tp] = out.base_offset;  // later ones start above the oldest
        return ok_v;
    }

    // An end-transaction marker (Kafka's appendEndTxnMarker): refused for an
    // epoch older than the producer's on the partition; indexed; the open
    // transaction closed, and recorded as aborted for an abort. A marker of a
    // newer epoch (transaction version 2 bumps it) is remembered, so the old
    // epoch is fenced here and the new one starts at sequence 0.
    result<batch_outcome, pg_error> end_txn(const staged_batch& b) {
        auto& history = histories_[producer_of(b)];
        if (!history.empty() && b.producer_epoch < history.back().producer_epoch)
            return batch_outcome{batch_outcome::invalid_producer_epoch};
        // ProducerAppendInfo.checkCoordinatorEpoch: the partition remembers the
        // newest coordinator epoch; an older one's marker is refused.
        auto fence = c_.exec(
            "INSERT INTO ketch_txn_marker_epochs AS e (topic_id, partition, producer_id, coordinator_epoch) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (topic_id, partition, producer_id) DO UPDATE "
            "SET coordinator_epoch = EXCLUDED.coordinator_epoch WHERE e.coordinator_epoch <= "
            "EXCLUDED.coordinator_epoch "
            "RETURNING 1",
            with(key(b.tp), {str(b.producer_id), str(b.coordinator_epoch)}));
        if (!fence.ok()) return failure{fence.error()};
        if (fence->rows.empty()) return batch_outcome{batch_outcome::coordinator_fenced};
        auto out = index(b);
        if (!history.empty() && b.producer_epoch > history.back().producer_epoch) remember(b, b.base_sequence, -1, out);
        auto closed = c_.exec(
            "DELETE FROM ketch_txn_open WHERE topic_id = $1 AND partition = $2 AND producer_id = $3 "
            "RETURNING first_offset",
            with(key(b.tp), {str(b.producer_id)}));
        if (!closed.ok()) return failure{closed.error()};
        if (closed->rows.empty()) return out;
        const int64_t first = std::stoll(closed->at(0, 0));
        if (b.marker == 0) {
            auto ab = c_.exec(
                "INSERT INTO ketch_aborted_txns (topic_id, partition, producer_id, first_offset, last_offset) "
                "VALUES ($1, $2, $3, $4, $5)",
                with(key(b.tp), {str(b.producer_id), str(first), str(out.base_offset)}));
            if (!ab.ok()) return failure{ab.error()};
        }
        if (first == unstable_[b.tp]) {
            auto m = c_.exec(
                "SELECT coalesce(min(first_offset), -1) FROM ketch_txn_open WHERE topic_id = $1 AND partition = $2",
                key(b.tp));
            if (!m.ok()) return failure{m.error()};
            unstable_[b.tp] = std::stoll(m->at(0, 0));
        }
        return out;
    }

    // Assigns the batch its offsets from the partition's high watermark; its
    // index row is written by finish().
    batch_outcome index(const staged_batch& b) {
        recorded_ = true;
        int64_t& hwm = hwm_[b.tp];
        batch_outcome out{batch_outcome::appended, hwm, hwm + b.record_count - 1};
        index_rows_.row({b.tp.topic_id, str(b.tp.partition), str(out.base_offset), str(out.last_offset),
                         str(int64_t(b.byte_offset)), str(b.byte_length), str(b.max_timestamp)});
        hwm = out.last_offset + 1;
        indexed_bytes_[b.tp] += b.byte_length;
        return out;
    }

    // The batch among the producer's last k_kept_batches on the partition.
    void remember(const staged_batch& b, int32_t first_seq, int32_t last_seq, const batch_outcome& out) {
        auto& history = histories_[producer_of(b)];
        history.push_back({b.producer_epoch, first_seq, last_seq, out.base_offset, out.last_offset});
        if (history.size() > k_kept_batches) history.erase(history.begin());
        changed_.insert(producer_of(b));
    }

    // The changed producers' rows replaced by their last batches: two statements.
    status<pg_error> write_producers() {
        if (changed_.empty()) return ok_v;
        columns gone(3), rows(8);
        for (auto& pk : changed_) {
            gone.row({pk.tp.topic_id, str(pk.tp.partition), str(pk.producer_id)});
            for (auto& h : histories_[pk])
                rows.row({pk.tp.topic_id, str(pk.tp.partition), str(pk.producer_id), str(h.producer_epoch),
                          str(h.first_seq), str(h.last_seq), str(h.base_offset), str(h.last_offset)});
        }
        auto del = c_.exec(
            "DELETE FROM ketch_producer_batches b USING unnest($1::text[], $2::int[], $3::bigint[]) "
            "AS g(t, p, id) WHERE b.topic_id = g.t AND b.partition = g.p AND b.producer_id = g.id",
            gone.params());
        if (!del.ok()) return failure{del.error()};
        auto ins = c_.exec(
            "INSERT INTO ketch_producer_batches (topic_id, partition, producer_id, producer_epoch, first_seq, "
            "last_seq, base_offset, last_offset) SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], "
            "$4::smallint[], $5::int[], $6::int[], $7::bigint[], $8::bigint[])",
            rows.params());
        if (!ins.ok()) return failure{ins.error()};
        return ok_v;
    }

    pg_connection& c_;
    const flushed_object& obj_;
    std::map<partition_key, int64_t> hwm_;
    std::map<partition_key, int64_t> locked_hwm_;  // as read under the lock
    std::map<partition_key, int64_t> unstable_;    // first offset of the oldest open transaction; -1 none
    std::map<producer_key, std::vector<committed_batch>> histories_;
    std::set<producer_key> changed_;
    columns index_rows_{7};
    std::map<partition_key, int64_t> indexed_bytes_;  // ketch_partitions.stored_bytes grows by these
    bool recorded_ = false;
};

// Rows for partitions nothing was committed to yet, in their own
// transaction (a row at zero means what no row means), so that the commit's
// one locking statement finds every row.
status<pg_error> create_partitions(pg_connection& c, const std::vector<partition_key>& missing) {
    columns t(2);
    for (auto& tp : missing) t.row({tp.topic_id, str(tp.partition)});
    auto ins = c.exec(
        "INSERT INTO ketch_partitions (topic_id, partition) SELECT * FROM unnest($1::text[], $2::int[]) "
        "ON CONFLICT DO NOTHING",
        t.params());
    if (!ins.ok()) return failure{ins.error()};
    return ok_v;
}

}  // namespace

result<std::vector<batch_outcome>, pg_error> commit_flush(pg_connection& c, const flushed_object& obj) {
    auto fail = [&c](pg_error e) {
        (void)c.run("ROLLBACK");
        return failure{std::move(e)};
    };
    for (int attempt = 0;; ++attempt) {
        if (auto b = c.run("BEGIN"); !b.ok()) return failure{b.error()};
        commit tx(c, obj);
        std::vector<partition_key> missing;
        if (auto l = tx.lock_partitions(missing); !l.ok()) return fail(l.error());
        if (!missing.empty()) {
            (void)c.run("ROLLBACK");
            if (attempt > 0) return failure{pg_error{"partition rows vanished while committing", "", false}};
            if (auto m = create_partitions(c, missing); !m.ok()) return failure{m.error()};
            continue;
        }
        if (auto p = tx.load_producers(); !p.ok()) return fail(p.error());
        std::vector<batch_outcome> outcomes;
        for (auto& b : obj.batches) {
            auto r = tx.apply(b);
            if (!r.ok()) return fail(r.error());
            outcomes.push_back(*r);
        }
        tx.fill_unstable(outcomes);
        if (auto f = tx.finish(); !f.ok()) return fail(f.error());
        if (auto done = c.run("COMMIT"); !done.ok()) return failure{done.error()};
        return outcomes;
    }
}

}  // namespace ketch::cluster
