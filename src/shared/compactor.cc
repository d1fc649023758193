#include "shared/compactor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cluster/compaction_catalogue.h"
#include "log/compaction_filter.h"
#include "objstore/retry.h"
#include "record/batch_header.h"
#include "record/record_reader.h"
#include "shared/object_io.h"

namespace ketch::shared {

namespace {

constexpr size_t k_page_rows = 1000;

using rows_t = std::vector<cluster::indexed_batch>;

class partition_compactor {
public:
    partition_compactor(objstore::s3_client& s3, cluster::pg_connection& pg, const cluster::partition_key& tp,
                        const log::compaction_config& cfg, int64_t now_ms, const object_key_fn& next_key,
                        uint64_t group_bytes, double io_max_bytes_per_second)
        : s3_(s3),
          pg_(pg),
          tp_(tp),
          cfg_(cfg),
          now_(now_ms),
          next_key_(next_key),
          group_bytes_(group_bytes),
          io_(io_max_bytes_per_second) {}

    result<compaction_outcome, std::string> run();

private:
    result<compaction_outcome, std::string> clean();
    // Calls `on_run` with the rows [from, to) in runs of about group_bytes_ (false from it: stop).
    template <typename F>
    result<bool, std::string> for_each_run(int64_t from, int64_t to, F on_run);
    // Each batch of `rows` (real offsets in its header) to `on_batch(row, bytes, header)`.
    template <typename F>
    status<std::string> for_each_batch(const rows_t& rows, F on_batch);
    status<std::string> read_transactions(int64_t from, int64_t to);
    status<std::string> build_map(int64_t start, int64_t end);
    result<bool, std::string> clean_run(const rows_t& rows, log::cleaned_txn_state& txn, int64_t upper);

    objstore::s3_client& s3_;
    cluster::pg_connection& pg_;
    const cluster::partition_key& tp_;
    const log::compaction_config& cfg_;
    const int64_t now_;
    const object_key_fn& next_key_;
    const uint64_t group_bytes_;
    io_throttle io_;  // every GET and PUT of this partition's compaction
    log::offset_map map_;
    std::vector<log::aborted_txn> aborted_;
    std::unordered_map<int64_t, log::producer_last_record> producers_;
    compaction_outcome out_;
};

template <typename F>
result<bool, std::string> partition_compactor::for_each_run(int64_t from, int64_t to, F on_run) {
    rows_t run;
    uint64_t run_bytes = 0;
    for (int64_t after = -1;;) {
        auto page = cluster::batches_between(pg_, tp_, from, to, after, k_page_rows);
        if (!page.ok()) return failure{"reading the index: " + page.error().message};
        for (auto& r : *page) {
            if (!run.empty() && run_bytes + r.byte_length > group_bytes_) {
                auto go_on = on_run(run);
                if (!go_on.ok() || !*go_on) return go_on;
                run.clear();
                run_bytes = 0;
            }
            run_bytes += r.byte_length;
            run.push_back(r);
        }
        if (page->size() < k_page_rows) break;
        after = page->back().base_offset;
    }
    if (run.empty()) return true;
    return on_run(run);
}

template <typename F>
status<std::string> partition_compactor::for_each_batch(const rows_t& rows, F on_batch) {
    auto data = fetch_indexed(s3_, rows, 0, &io_);
    if (!data.ok()) return failure{data.error()};
    size_t at = 0;
    for (auto& r : rows) {
        byte_view b(data->data() + at, r.byte_length);
        at += r.byte_length;
        auto h = record::parse_batch_header(b);
        if (!h) return failure{"a batch shorter than its header at offset " + std::to_string(r.base_offset)};
        if (auto s = on_batch(r, b, *h); !s.ok()) return s;
    }
    return ok_v;
}

// The aborted transactions (ketch_aborted_txns) and producers' last batches, as the single-node cleaner's scan finds
// them (log/compaction_txn.h).
status<std::string> partition_compactor::read_transactions(int64_t from, int64_t to) {
    auto ab = cluster::find_aborted(pg_, tp_, from, to);
    if (!ab.ok()) return failure{"aborted transactions: " + ab.error().message};
    for (auto& a : *ab) aborted_.push_back({a.producer_id, a.first_offset, a.last_offset, -1});
    auto ps = cluster::producers_last(pg_, tp_);
    if (!ps.ok()) return failure{"producers: " + ps.error().message};
    for (auto& p : *ps) producers_[p.producer_id] = {p.last_data_offset, p.producer_epoch};
    return ok_v;
}

// Cleaner.buildOffsetMap over [start, end): stops at a batch boundary when the map is full.
status<std::string> partition_compactor::build_map(int64_t start, int64_t end) {
    log::cleaned_txn_state txn(aborted_);
    bool full = false;
    auto mapped = for_each_run(start, end, [&](const rows_t& rows) -> result<bool, std::string> {
        auto s = for_each_batch(
            rows,
            [&](const cluster::indexed_batch&, byte_view b, const record::batch_header& h) -> status<std::string> {
                if (full) return ok_v;
                if (h.is_control()) {
                    txn.on_control_batch_read(h, log::read_marker_type(b));
                } else if (!txn.on_batch_read(h)) {
                    auto rr = record::record_reader::open(b);
                    if (!rr) return failure{"reading a batch: " + rr.error().message};
                    record::record_view rv;
                    for (;;) {
                        auto n = rr->next(rv);
                        if (!n) return failure{"reading a record: " + n.error().message};
                        if (!*n) break;
                        const int64_t offset = h.base_offset + rv.offset_delta;
                        if (!rv.key || offset < start) continue;
                        if (int64_t(map_.offsets.size()) >= cfg_.max_map_keys && map_.get(*rv.key) < 0) {
                            full = true;  // the map covers up to the previous batch
                            return ok_v;
                        }
                        map_.put(*rv.key, offset);
                    }
                }
                map_.latest_offset = std::max(map_.latest_offset, h.last_offset());
                return ok_v;
            });
        if (!s.ok()) return failure{s.error()};
        return !full;
    });
    if (!mapped.ok()) return failure{mapped.error()};
    if (!full) map_.latest_offset = std::max(map_.latest_offset, end - 1);  // holes up to the end are covered
    return ok_v;
}

// One run through the filter; PUT and swapped unless nothing would change. false: the index changed meanwhile.
result<bool, std::string> partition_compactor::clean_run(const rows_t& rows, log::cleaned_txn_state& txn,
                                                         int64_t upper) {
    log::batch_filter_context ctx{map_, txn, producers_, upper, now_, cfg_.delete_retention_ms};
    std::string body;
    std::vector<cluster::compacted_row> kept;
    bool unchanged = true;
    auto s = for_each_batch(
        rows, [&](const cluster::indexed_batch& r, byte_view b, const record::batch_header& h) -> status<std::string> {
            out_.clean.bytes_before += r.byte_length;
            auto fb = log::filter_batch(b, h, ctx);
            if (!fb) return failure{"cleaning offset " + std::to_string(r.base_offset) + ": " + fb.error().message};
            out_.clean.records_read += fb->records_read;
            out_.clean.records_kept += fb->records_kept;
            unchanged &= fb->what == log::filtered_batch::kind::original && r.object_key == rows.front().object_key;
            if (fb->what == log::filtered_batch::kind::dropped) return ok_v;
            byte_view kept_bytes = fb->what == log::filtered_batch::kind::original ? b : byte_view(fb->data);
            auto kh = record::parse_batch_header(kept_bytes);
            if (!kh) return failure{std::string("a rebuilt batch without a header")};
            kept.push_back(
                {kh->base_offset, kh->last_offset(), body.size(), uint32_t(kept_bytes.size()), kh->max_timestamp});
            body.append(reinterpret_cast<const char*>(kept_bytes.data()), kept_bytes.size());
            return ok_v;
        });
    if (!s.ok()) return failure{s.error()};
    out_.clean.bytes_after += body.size();
    if (unchanged) return true;
    std::string key;
    if (!body.empty()) {
        key = next_key_();
        auto sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
        auto put =
            objstore::with_retries(objstore::retry_policy{}, sleep, [&] { return s3_.put_object(key, body, true); });
        if (!put.ok()) return failure{"PUT " + key + ": " + put.error().describe()};
        io_.charge(body.size());
    }
    auto swapped = cluster::swap_compacted(pg_, tp_, rows, key, body.size(), kept);
    if (!swapped.ok()) return failure{"swapping " + key + " in: " + swapped.error().message};
    if (!*swapped) return false;  // an unrecorded object (if any) is the sweeper's orphan
    ++out_.runs_swapped;
    if (!key.empty()) ++out_.objects_written;
    return true;
}

result<compaction_outcome, std::string> partition_compactor::run() {
    auto out = clean();
    if (out.ok()) {
        out->io_bytes = io_.bytes();
        out->throttled_ms = std::chrono::duration_cast<std::chrono::milliseconds>(io_.slept()).count();
    }
    return out;
}

result<compaction_outcome, std::string> partition_compactor::clean() {
    auto range = cluster::cleanable_offsets(pg_, tp_, cfg_.min_compaction_lag_ms, now_);
    if (!range.ok()) return failure{"cleanable offsets: " + range.error().message};
    if (!*range || (*range)->first_uncleanable <= (*range)->first_dirty) return out_;
    const auto& r = **range;
    auto& c = out_.clean;
    c.first_dirty_offset = c.end_offset = r.first_dirty;
    const uint64_t total = r.clean_bytes + r.dirty_bytes;
    c.dirty_ratio = total == 0 ? 0 : double(r.dirty_bytes) / double(total);
    // LogCleanerManager.maxCompactionDelay: overdue dirty data is compacted whatever the ratio.
    const bool overdue = cfg_.max_compaction_lag_ms > 0 && r.oldest_dirty_timestamp >= 0 &&
                         r.oldest_dirty_timestamp < now_ - cfg_.max_compaction_lag_ms;
    if (r.dirty_bytes == 0 || !(overdue || c.dirty_ratio > cfg_.min_cleanable_dirty_ratio)) return out_;

    if (auto s = read_transactions(r.log_start_offset, r.first_uncleanable); !s.ok()) return failure{s.error()};
    if (auto s = build_map(r.first_dirty, r.first_uncleanable); !s.ok()) return failure{s.error()};
    const int64_t end = map_.latest_offset + 1;
    if (end <= r.first_dirty) return out_;
    log::cleaned_txn_state txn(aborted_);
    auto all = for_each_run(r.log_start_offset, end,
                            [&](const rows_t& rows) { return clean_run(rows, txn, r.first_uncleanable); });
    if (!all.ok()) return failure{all.error()};
    if (!*all) return out_;  // the index changed: from the checkpoint again next pass
    if (auto s = cluster::set_first_dirty(pg_, tp_, end); !s.ok()) return failure{"checkpoint: " + s.error().message};
    c.cleaned = true;
    c.end_offset = end;
    c.groups = int(out_.runs_swapped);
    return out_;
}

}  // namespace

result<compaction_outcome, std::string> compact_partition(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                          const cluster::partition_key& tp,
                                                          const log::compaction_config& cfg, int64_t now_ms,
                                                          const object_key_fn& next_key, uint64_t group_bytes,
                                                          double io_max_bytes_per_second) {
    partition_compactor pc(s3, pg, tp, cfg, now_ms, next_key, group_bytes, io_max_bytes_per_second);
    return pc.run();
}

result<compaction_pass, std::string> compact_all(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                 const compaction_of_topic& compaction_of, int64_t now_ms,
                                                 const object_key_fn& next_key, double io_max_bytes_per_second) {
    auto parts = cluster::list_partitions(pg);
    if (!parts.ok()) return failure{"listing partitions: " + parts.error().message};
    compaction_pass out;
    for (const auto& [name, key] : *parts) {
        auto cfg = compaction_of(name);
        if (!cfg) continue;
        ++out.partitions;
        auto r =
            compact_partition(s3, pg, key, *cfg, now_ms, next_key, k_compaction_group_bytes, io_max_bytes_per_second);
        if (!r.ok()) {
            spdlog::warn("cluster: compaction of {}-{}: {}", name, key.partition, r.error());
            continue;
        }
        out.objects_written += r->objects_written;
        if (!r->clean.cleaned) continue;
        ++out.compacted;
        const auto& c = r->clean;
        spdlog::info(
            "cluster: compacted {}-{}: offsets [{}, {}) dirty ratio {:.2f}, {} -> {} bytes, kept {} of {} "
            "records, {} run(s) swapped, IO {} bytes, throttled {} ms",
            name, key.partition, c.first_dirty_offset, c.end_offset, c.dirty_ratio, c.bytes_before, c.bytes_after,
            c.records_kept, c.records_read, r->runs_swapped, r->io_bytes, r->throttled_ms);
    }
    return out;
}

}  // namespace ketch::shared
