// One partition of the shared log (shared_engine.h): staged appends, reads
// through the catalogue and object_reader (caches, ranged GETs), offsets from ketch_partitions.
#include <spdlog/spdlog.h>

#include "cluster/retention.h"
#include "log/record_timestamps.h"
#include "record/batch_builder.h"
#include "record/batch_header.h"
#include "shared/memory_file.h"
#include "shared/shared_engine.h"

namespace ketch::shared {

namespace {

log::log_error pg_read_failed(const std::string& what) { return {log::log_errc::io, "PostgreSQL: " + what}; }

void raise(std::atomic<int64_t>& a, int64_t v) {
    int64_t cur = a.load();
    while (v > cur && !a.compare_exchange_weak(cur, v)) {
    }
}

}  // namespace

void shared_storage::observe(int64_t log_start, int64_t hwm, std::optional<int64_t> first_unstable) {
    raise(hwm_, hwm);
    raise(log_start_, log_start);
    // The LSO never moves back: a transaction opens at the high watermark,
    // at or past the LSO of the moment.
    if (first_unstable) raise(lso_, *first_unstable < 0 ? hwm : std::min(*first_unstable, hwm));
}

log::log_result<log::append_result> shared_storage::append(byte_view batch, const log::append_options& opts) {
    if (opts.timestamp_type == record::timestamp_type::log_append_time || opts.leader_epoch) {
        bytes copy(batch.begin(), batch.end());
        if (opts.timestamp_type == record::timestamp_type::log_append_time)
            record::set_log_append_time(copy.data(), copy.size(), opts.now_ms);
        return staged(engine_.stage(shared_from_this(), copy));
    }
    return staged(engine_.stage(shared_from_this(), batch));
}

log::log_result<log::append_result> shared_storage::staged(uint64_t ticket) const {
    if (ticket == 0) return failure{log::log_error{log::log_errc::io, "the shared log's buffer is full"}};
    log::append_result r;
    r.pending = ticket;
    r.log_start_offset = log_start_.load();
    return r;
}

// Staged like a produce and committed by the flush (the commit closes the
// producer's open transaction and records an abort's range).
log::log_result<log::append_result> shared_storage::append_txn_marker(int64_t producer_id, int16_t producer_epoch,
                                                                      bool commit, int32_t coordinator_epoch,
                                                                      int64_t now_ms) {
    auto type = commit ? record::control_type::commit : record::control_type::abort;
    bytes batch = record::build_end_txn_marker(type, producer_id, producer_epoch, coordinator_epoch, now_ms, 0, 0);
    return staged(engine_.stage(shared_from_this(), batch, commit ? 1 : 0));
}

log::log_result<std::vector<cluster::indexed_batch>> shared_storage::find_range(cluster::pg_connection& c,
                                                                                int64_t offset, uint64_t max_bytes,
                                                                                int64_t limit, bool min_one_batch) {
    auto found = cluster::find_batches(c, key_, offset, max_bytes);
    if (!found.ok()) return failure{pg_read_failed(found.error().message)};
    std::erase_if(*found, [&](const cluster::indexed_batch& b) { return b.base_offset >= limit; });
    if (!found->empty() && !min_one_batch && found->front().byte_length > max_bytes) found->clear();
    return std::move(*found);
}

log::log_result<bytes> shared_storage::read_range(const std::vector<cluster::indexed_batch>& found) {
    bytes out;
    if (found.empty()) return out;
    // The batches' byte ranges, read together: ranges of one object in one GET (object_reader.h).
    std::vector<wanted_range> wanted;
    wanted.reserve(found.size());
    for (auto& b : found) wanted.push_back({b.object_key, b.byte_offset, b.byte_length, b.object_size});
    auto s3 = engine_.s3();
    auto got = engine_.reader().read(s3, wanted);
    if (!got.ok()) return failure{log::log_error{log::log_errc::io, got.error()}};
    for (size_t i = 0; i < found.size(); ++i) {
        auto& b = found[i];
        size_t at = out.size();
        auto* from = reinterpret_cast<const uint8_t*>((*got)[i].b->data()) + (*got)[i].at;
        out.insert(out.end(), from, from + b.byte_length);
        record::set_base_offset(out.data() + at, b.base_offset);
        record::set_partition_leader_epoch(out.data() + at, 0);
    }
    return out;
}

log::log_result<cluster::partition_offsets> shared_storage::read_and_observe(cluster::pg_connection& c) {
    auto offs = cluster::read_offsets(c, key_);
    if (!offs.ok()) return failure{pg_read_failed(offs.error().message)};
    observe(offs->log_start_offset, offs->high_watermark, offs->first_unstable);
    return *offs;
}

log::log_status shared_storage::refresh_offsets() {
    auto c = engine_.pool().take();
    if (!c.ok()) return failure{pg_read_failed(c.error().message)};
    auto l = std::move(*c);  // given back when the scope ends
    auto offs = read_and_observe(*l);
    if (!offs.ok()) return failure{offs.error()};
    return ok_v;
}

log::log_result<log::read_result> shared_storage::read(int64_t offset, uint64_t max_bytes,
                                                       const log::read_options& opts) {
    log::read_result r;
    std::vector<cluster::indexed_batch> found;
    {
        // PostgreSQL's part: the offsets, the index rows and the aborted
        // ranges; the connection goes back before the object store's GETs (a
        // cache miss), which take as long as the store does.
        auto c = engine_.pool().take();
        if (!c.ok()) return failure{pg_read_failed(c.error().message)};
        auto l = std::move(*c);  // given back when the scope ends
        auto offs = read_and_observe(*l);
        if (!offs.ok()) return failure{offs.error()};
        const int64_t start = log_start_.load(), hwm = hwm_.load();
        // This read's own view: what it returns and the aborted ranges agree with it.
        const int64_t lso = std::max(start, offs->last_stable_offset());
        if (offset < start || offset > hwm)
            return failure{log::log_error{log::log_errc::offset_out_of_range, "offset " + std::to_string(offset) +
                                                                                  " outside [" + std::to_string(start) +
                                                                                  ", " + std::to_string(hwm) + "]"}};
        r.log_start_offset = start;
        r.high_watermark = hwm;
        r.last_stable_offset = std::min(lso, hwm);
        if (opts.read_committed) r.aborted.emplace();
        const int64_t limit = std::min(opts.max_offset, opts.read_committed ? r.last_stable_offset : hwm);
        if (offset >= limit) return r;
        auto f = find_range(*l, offset, max_bytes, limit, opts.min_one_batch);
        if (!f.ok()) return failure{std::move(f.error())};
        if (f->empty()) return r;
        found = std::move(*f);
        if (opts.read_committed) {
            auto ab = cluster::find_aborted(*l, key_, offset, found.back().last_offset + 1);
            if (!ab.ok()) return failure{pg_read_failed(ab.error().message)};
            for (auto& a : *ab) r.aborted->push_back({a.producer_id, a.first_offset, a.last_offset, -1});
        }
    }
    auto data = read_range(found);
    if (!data.ok()) return failure{std::move(data.error())};
    r.total_bytes = data->size();
    const auto len = uint32_t(data->size());
    r.slices.push_back(
        {std::make_shared<memory_file>(topic_ + "-" + std::to_string(partition_), std::move(*data)), 0, len, len});
    return r;
}

log::log_result<std::optional<log::timestamp_offset>> shared_storage::find_timestamp(const std::string& sql, int64_t ts,
                                                                                     bool want_max) {
    int64_t base = 0, batch_max = 0;
    std::vector<cluster::indexed_batch> found;
    {
        auto c = engine_.pool().take();
        if (!c.ok()) return failure{pg_read_failed(c.error().message)};
        auto l = std::move(*c);  // given back when the scope ends: before the GET (see read())
        cluster::pg_params p{key_.topic_id, std::to_string(key_.partition)};
        if (!want_max) p.push_back(std::to_string(ts));
        auto rows = l->exec(sql, p);
        if (!rows.ok()) return failure{pg_read_failed(rows.error().message)};
        if (rows->rows.empty()) return std::optional<log::timestamp_offset>{};
        base = std::stoll(rows->at(0, 0));
        batch_max = std::stoll(rows->at(0, 1));
        auto f = find_range(*l, base, 1, INT64_MAX, true);
        if (!f.ok()) return failure{std::move(f.error())};
        found = std::move(*f);
    }
    auto data = read_range(found);
    if (!data.ok()) return failure{std::move(data.error())};
    std::optional<log::timestamp_offset> best;
    bool decoded = log::decode_record_timestamps(*data, [&](int64_t off, int64_t t) {
        if (want_max) {
            if (!best || t > best->timestamp) best = log::timestamp_offset{t, off, 0};
            return true;
        }
        if (t >= ts) {
            best = log::timestamp_offset{t, off, 0};
            return false;
        }
        return true;
    });
    if (!decoded || !best) best = log::timestamp_offset{batch_max, base, 0};
    return best;
}

log::log_result<std::optional<log::timestamp_offset>> shared_storage::offset_for_timestamp(int64_t ts) {
    return find_timestamp(
        "SELECT base_offset, max_timestamp FROM ketch_batches WHERE topic_id = $1 AND partition = $2 "
        "AND max_timestamp >= $3 AND last_offset >= (SELECT log_start_offset FROM ketch_partitions "
        "WHERE topic_id = $1 AND partition = $2) ORDER BY base_offset LIMIT 1",
        ts, false);
}

log::log_result<std::optional<log::timestamp_offset>> shared_storage::max_timestamp() {
    return find_timestamp(
        "SELECT base_offset, max_timestamp FROM ketch_batches WHERE topic_id = $1 AND partition = $2 "
        "ORDER BY max_timestamp DESC, base_offset LIMIT 1",
        0, true);
}

log::log_result<int64_t> shared_storage::delete_records_before(int64_t offset) {
    auto c = engine_.pool().take();
    if (!c.ok()) return failure{pg_read_failed(c.error().message)};
    auto l = std::move(*c);  // given back when the scope ends
    // By metadata (cluster/retention.h): the index rows below go, the objects
    // they leave unreferenced are the garbage collector's.
    auto moved = cluster::move_log_start(*l, key_, offset);
    if (!moved.ok()) return failure{pg_read_failed(moved.error().message)};
    observe(moved->log_start_offset, moved->log_start_offset);
    return moved->log_start_offset;
}

// The producer's last batch (its epoch and sequence), that batch's
// max_timestamp (the commit time when its index row is gone: merged, or below
// the log start), and the first offset of its open transaction.
std::vector<log::producer_entry> shared_storage::producers() const {
    static const std::string k_sql =
        "SELECT p.producer_id, p.producer_epoch, p.first_seq, p.last_seq, p.base_offset, p.last_offset, "
        "COALESCE(b.max_timestamp, (extract(epoch FROM p.committed_at) * 1000)::bigint), "
        "COALESCE(o.first_offset, -1) FROM (SELECT DISTINCT ON (producer_id) * FROM ketch_producer_batches "
        "WHERE topic_id = $1 AND partition = $2 ORDER BY producer_id, base_offset DESC) p "
        "LEFT JOIN ketch_batches b ON b.topic_id = $1 AND b.partition = $2 AND b.base_offset = p.base_offset "
        "LEFT JOIN ketch_txn_open o ON o.topic_id = $1 AND o.partition = $2 AND o.producer_id = p.producer_id "
        "ORDER BY p.producer_id";
    auto c = engine_.pool().take();
    if (!c.ok()) {
        spdlog::warn("cluster: producers of {}-{} not read: {}", key_.topic_id, key_.partition, c.error().message);
        return {};
    }
    auto l = std::move(*c);  // given back when the scope ends
    auto rows = l->exec(k_sql, {key_.topic_id, std::to_string(key_.partition)});
    if (!rows.ok()) {
        spdlog::warn("cluster: producers of {}-{} not read: {}", key_.topic_id, key_.partition, rows.error().message);
        return {};
    }
    std::vector<log::producer_entry> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        auto& e = out.emplace_back();
        e.producer_id = std::stoll(rows->at(i, 0));
        e.epoch = int16_t(std::stoi(rows->at(i, 1)));
        e.batches.push_back({int32_t(std::stol(rows->at(i, 2))), int32_t(std::stol(rows->at(i, 3))),
                             std::stoll(rows->at(i, 4)), std::stoll(rows->at(i, 5))});
        e.last_timestamp = std::stoll(rows->at(i, 6));
        e.txn_first_offset = std::stoll(rows->at(i, 7));
    }
    return out;
}

}  // namespace ketch::shared
