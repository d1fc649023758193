#include "cluster/catalogue.h"

#include <map>
#include <optional>
#include <set>

#include "cluster/sequence_check.h"

namespace ketch::cluster {

namespace {

using s = std::string;

pg_params key(const partition_key& tp) { return {tp.topic_id, std::to_string(tp.partition)}; }

pg_params with(pg_params p, std::initializer_list<std::optional<std::string>> more) {
    p.insert(p.end(), more);
    return p;
}

// One commit's state: the locked partitions' high watermarks as they advance.
class commit {
public:
    commit(pg_connection& c, const flushed_object& obj) : c_(c), obj_(obj) {}

    status<pg_error> lock_partitions() {
        std::set<partition_key> touched;
        for (auto& b : obj_.batches) touched.insert(b.tp);
        for (auto& tp : touched) {  // a fixed order: concurrent commits cannot deadlock
            auto ins = c_.exec(
                "INSERT INTO ketch_partitions (topic_id, partition) VALUES ($1, $2) "
                "ON CONFLICT DO NOTHING",
                key(tp));
            if (!ins.ok()) return failure{ins.error()};
            // Open transactions of a partition change only under its row lock.
            auto row = c_.exec(
                "SELECT high_watermark, coalesce((SELECT min(first_offset) FROM ketch_txn_open o "
                "WHERE o.topic_id = $1 AND o.partition = $2), -1) FROM ketch_partitions "
                "WHERE topic_id = $1 AND partition = $2 FOR UPDATE OF ketch_partitions",
                key(tp));
            if (!row.ok()) return failure{row.error()};
            hwm_[tp] = std::stoll(row->at(0, 0));
            unstable_[tp] = std::stoll(row->at(0, 1));
        }
        return ok_v;
    }

    result<batch_outcome, pg_error> apply(const staged_batch& b) {
        if (b.marker >= 0) return end_txn(b);
        if (b.producer_id >= 0) {
            auto history = producer_history(b);
            if (!history.ok()) return failure{history.error()};
            int32_t last_seq = int32_t((int64_t(b.base_sequence) + b.record_count - 1) % (int64_t(INT32_MAX) + 1));
            auto v = check_sequence(*history, b.producer_epoch, b.base_sequence, last_seq);
            if (v.what == sequence_verdict::duplicate)
                return batch_outcome{batch_outcome::duplicate, v.base_offset, v.last_offset};
            if (v.what == sequence_verdict::invalid_producer_epoch)
                return batch_outcome{batch_outcome::invalid_producer_epoch};
            if (v.what == sequence_verdict::out_of_order_sequence)
                return batch_outcome{batch_outcome::out_of_order_sequence};
            auto out = index(b);
            if (!out.ok()) return out;
            if (auto r = remember_producer(b, last_seq, *out); !r.ok()) return failure{r.error()};
            if (b.transactional)
                if (auto r = open_txn(b, *out); !r.ok()) return failure{r.error()};
            return out;
        }
        return index(b);
    }

    status<pg_error> finish() {
        for (auto& [tp, hwm] : hwm_) {
            auto up = c_.exec("UPDATE ketch_partitions SET high_watermark = $3 WHERE topic_id = $1 AND partition = $2",
                              with(key(tp), {std::to_string(hwm)}));
            if (!up.ok()) return failure{up.error()};
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
            with(key(b.tp), {std::to_string(b.producer_id), std::to_string(out.base_offset)}));
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
        auto history = producer_history(b);
        if (!history.ok()) return failure{history.error()};
        if (!history->empty() && b.producer_epoch < history->back().producer_epoch)
            return batch_outcome{batch_outcome::invalid_producer_epoch};
        auto out = index(b);
        if (!out.ok()) return out;
        if (!history->empty() && b.producer_epoch > history->back().producer_epoch)
            if (auto r = remember_producer(b, -1, *out); !r.ok()) return failure{r.error()};
        auto closed = c_.exec(
            "DELETE FROM ketch_txn_open WHERE topic_id = $1 AND partition = $2 AND producer_id = $3 "
            "RETURNING first_offset",
            with(key(b.tp), {std::to_string(b.producer_id)}));
        if (!closed.ok()) return failure{closed.error()};
        if (closed->rows.empty()) return out;
        const int64_t first = std::stoll(closed->at(0, 0));
        if (b.marker == 0) {
            auto ab = c_.exec(
                "INSERT INTO ketch_aborted_txns (topic_id, partition, producer_id, first_offset, last_offset) "
                "VALUES ($1, $2, $3, $4, $5)",
                with(key(b.tp),
                     {std::to_string(b.producer_id), std::to_string(first), std::to_string(out->base_offset)}));
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

    result<std::vector<committed_batch>, pg_error> producer_history(const staged_batch& b) {
        auto rows = c_.exec(
            "SELECT producer_epoch, first_seq, last_seq, base_offset, last_offset "
            "FROM ketch_producer_batches WHERE topic_id = $1 AND partition = $2 AND producer_id = $3 "
            "ORDER BY base_offset",
            with(key(b.tp), {std::to_string(b.producer_id)}));
        if (!rows.ok()) return failure{rows.error()};
        std::vector<committed_batch> out;
        for (size_t i = 0; i < rows->rows.size(); ++i)
            out.push_back({int16_t(std::stoi(rows->at(i, 0))), std::stoi(rows->at(i, 1)), std::stoi(rows->at(i, 2)),
                           std::stoll(rows->at(i, 3)), std::stoll(rows->at(i, 4))});
        return out;
    }

    // Assigns the batch its offsets from the partition's high watermark and indexes it.
    result<batch_outcome, pg_error> index(const staged_batch& b) {
        if (!recorded_) {
            auto o = c_.exec("INSERT INTO ketch_objects (object_key, size_bytes, node_id) VALUES ($1, $2, $3)",
                             {obj_.object_key, std::to_string(obj_.size_bytes), std::to_string(obj_.node_id)});
            if (!o.ok()) return failure{o.error()};
            recorded_ = true;
        }
        int64_t& hwm = hwm_[b.tp];
        batch_outcome out{batch_outcome::appended, hwm, hwm + b.record_count - 1};
        auto ins = c_.exec(
            "INSERT INTO ketch_batches (topic_id, partition, base_offset, last_offset, object_key, "
            "byte_offset, byte_length, max_timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            with(key(b.tp),
                 {std::to_string(out.base_offset), std::to_string(out.last_offset), obj_.object_key,
                  std::to_string(b.byte_offset), std::to_string(b.byte_length), std::to_string(b.max_timestamp)}));
        if (!ins.ok()) return failure{ins.error()};
        hwm = out.last_offset + 1;
        return out;
    }

    // The batch among the producer's last k_kept_batches on the partition.
    status<pg_error> remember_producer(const staged_batch& b, int32_t last_seq, const batch_outcome& out) {
        auto p = with(key(b.tp), {std::to_string(b.producer_id)});
        auto ins = c_.exec(
            "INSERT INTO ketch_producer_batches (topic_id, partition, producer_id, producer_epoch, "
            "first_seq, last_seq, base_offset, last_offset) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            with(p, {std::to_string(b.producer_epoch), std::to_string(b.base_sequence), std::to_string(last_seq),
                     std::to_string(out.base_offset), std::to_string(out.last_offset)}));
        if (!ins.ok()) return failure{ins.error()};
        auto trim = c_.exec(
            "DELETE FROM ketch_producer_batches WHERE topic_id = $1 AND partition = $2 AND "
            "producer_id = $3 AND base_offset < (SELECT min(base_offset) FROM (SELECT base_offset "
            "FROM ketch_producer_batches WHERE topic_id = $1 AND partition = $2 AND producer_id = $3 "
            "ORDER BY base_offset DESC LIMIT $4) AS kept)",
            with(p, {std::to_string(k_kept_batches)}));
        if (!trim.ok()) return failure{trim.error()};
        return ok_v;
    }

    pg_connection& c_;
    const flushed_object& obj_;
    std::map<partition_key, int64_t> hwm_;
    std::map<partition_key, int64_t> unstable_;  // first offset of the oldest open transaction; -1 none
    bool recorded_ = false;
};

}  // namespace

result<std::vector<batch_outcome>, pg_error> commit_flush(pg_connection& c, const flushed_object& obj) {
    if (auto b = c.run("BEGIN"); !b.ok()) return failure{b.error()};
    auto fail = [&c](pg_error e) {
        (void)c.run("ROLLBACK");
        return failure{std::move(e)};
    };
    commit tx(c, obj);
    if (auto l = tx.lock_partitions(); !l.ok()) return fail(l.error());
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

result<std::vector<indexed_batch>, pg_error> find_batches(pg_connection& c, const partition_key& tp, int64_t offset,
                                                          uint64_t max_bytes) {
    auto rows = c.exec(
        "SELECT base_offset, last_offset, object_key, byte_offset, byte_length FROM ketch_batches "
        "WHERE topic_id = $1 AND partition = $2 AND last_offset >= $3 ORDER BY base_offset LIMIT 1000",
        with(key(tp), {std::to_string(offset)}));
    if (!rows.ok()) return failure{rows.error()};
    std::vector<indexed_batch> out;
    uint64_t bytes = 0;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        indexed_batch b{std::stoll(rows->at(i, 0)), std::stoll(rows->at(i, 1)), rows->at(i, 2),
                        std::stoull(rows->at(i, 3)), uint32_t(std::stoul(rows->at(i, 4)))};
        if (!out.empty() && bytes + b.byte_length > max_bytes) break;
        bytes += b.byte_length;
        out.push_back(std::move(b));
    }
    return out;
}

result<partition_offsets, pg_error> read_offsets(pg_connection& c, const partition_key& tp) {
    auto rows = c.exec(
        "SELECT log_start_offset, high_watermark, coalesce((SELECT min(first_offset) FROM ketch_txn_open o "
        "WHERE o.topic_id = $1 AND o.partition = $2), -1) FROM ketch_partitions "
        "WHERE topic_id = $1 AND partition = $2",
        key(tp));
    if (!rows.ok()) return failure{rows.error()};
    if (rows->rows.empty()) return partition_offsets{};
    return partition_offsets{std::stoll(rows->at(0, 0)), std::stoll(rows->at(0, 1)), std::stoll(rows->at(0, 2))};
}

result<std::vector<aborted_range>, pg_error> find_aborted(pg_connection& c, const partition_key& tp, int64_t from,
                                                          int64_t upper) {
    auto rows = c.exec(
        "SELECT producer_id, first_offset, last_offset FROM ketch_aborted_txns WHERE topic_id = $1 AND "
        "partition = $2 AND last_offset >= $3 AND first_offset < $4 ORDER BY first_offset",
        with(key(tp), {std::to_string(from), std::to_string(upper)}));
    if (!rows.ok()) return failure{rows.error()};
    std::vector<aborted_range> out;
    for (size_t i = 0; i < rows->rows.size(); ++i)
        out.push_back({std::stoll(rows->at(i, 0)), std::stoll(rows->at(i, 1)), std::stoll(rows->at(i, 2))});
    return out;
}

}  // namespace ketch::cluster
