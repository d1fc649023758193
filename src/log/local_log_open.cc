// local_log: open and crash recovery (the contract is in local_log.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <map>

#include "log/compaction_files.h"
#include "log/local_log.h"
#include "log/log_format.h"

namespace ketch::log {

log_result<std::shared_ptr<local_log>> local_log::open(options opt) {
    if (!opt.fs || opt.dir.empty()) return failure{log_error{log_errc::invalid_argument, "local_log needs fs and dir"}};
    if (opt.create_dir)
        if (auto st = opt.fs->mkdir(opt.dir); !st) return failure{from_io(st.error())};
    auto self = std::make_shared<local_log>(private_tag{}, std::move(opt));
    if (auto st = self->load(); !st) return failure{st.error()};
    if (self->opt_.flusher) self->opt_.flusher->watch(self->weak_from_this());
    return self;
}

log_status local_log::delete_segment_files(int64_t base) {
    for (auto suffix : {k_index_suffix, k_time_index_suffix, k_txn_index_suffix, k_flushed_suffix, k_log_suffix}) {
        auto st = opt_.fs->remove(io::join_path(opt_.dir, segment_file_name(base, suffix)));
        if (!st && st.error().kind != io::io_errc::not_found) return failure{from_io(st.error())};
    }
    return ok_v;
}

// What load() found and decided, passed between its steps.
struct local_log::load_state {
    std::vector<int64_t> bases;      // segment logs, by base offset
    std::vector<int64_t> snapshots;  // producer-state snapshots, by offset
    bool removed_any = false;        // a file was removed: the directory needs a sync
    int64_t log_start = 0;
    int64_t recovery_point = 0;
    int64_t first_scanned = INT64_MAX;  // producer state replays from a snapshot at or below it
    bytes journal_image;                // the producer state the first scanned segment's flush journal holds
    std::vector<std::shared_ptr<segment>> to_finalize;
};

namespace {

// What is there: segment logs, index files, leftovers of atomic writes. Temp
// files and index files without their segment are removed.
void scan_dir(io::file_system& fs, const std::string& dir, const std::vector<io::dir_entry>& entries,
              std::vector<int64_t>& bases, std::vector<int64_t>& snapshots, bool& removed_any) {
    std::map<int64_t, std::vector<std::string>> index_files;
    for (const auto& e : entries) {
        if (e.is_dir) continue;
        if (auto b = parse_segment_file_name(e.name, k_log_suffix)) {
            bases.push_back(*b);
        } else if (auto p = parse_segment_file_name(e.name, k_snapshot_suffix)) {
            snapshots.push_back(*p);
        } else if (e.name.ends_with(k_tmp_suffix)) {
            (void)fs.remove(io::join_path(dir, e.name));
            removed_any = true;
        } else {
            for (auto suffix : {k_index_suffix, k_time_index_suffix, k_txn_index_suffix, k_flushed_suffix})
                if (auto i = parse_segment_file_name(e.name, suffix)) index_files[*i].push_back(e.name);
        }
    }
    std::sort(bases.begin(), bases.end());
    std::sort(snapshots.begin(), snapshots.end());
    for (const auto& [base, names] : index_files) {
        if (std::binary_search(bases.begin(), bases.end(), base)) continue;
        for (const auto& n : names) (void)fs.remove(io::join_path(dir, n));  // orphan index
        removed_any = true;
    }
}

}  // namespace

log_status local_log::load() {
    auto& fs = *opt_.fs;
    auto entries = fs.list_dir(opt_.dir);
    if (!entries) return failure{from_io(entries.error())};
    // An interrupted compaction swap is finished (or its leftovers removed)
    // first; the directory is listed again only if that changed it.
    auto swaps = recover_compaction_files(fs, opt_.dir, *entries);
    if (!swaps) return failure{swaps.error()};
    report_.swaps_completed = swaps->swaps_completed;
    if (swaps->swaps_completed > 0 || swaps->files_removed > 0) {
        entries = fs.list_dir(opt_.dir);
        if (!entries) return failure{from_io(entries.error())};
    }
    load_state st;
    scan_dir(fs, opt_.dir, *entries, st.bases, st.snapshots, st.removed_any);

    auto cp = read_checkpoint(fs, opt_.dir);
    if (!cp) return failure{cp.error()};
    st.log_start = *cp ? (*cp)->log_start_offset : (st.bases.empty() ? 0 : st.bases.front());
    st.recovery_point = *cp ? (*cp)->recovery_point : 0;
    // Segments wholly below the log start: an interrupted deletion.
    while (st.bases.size() >= 2 && st.bases[1] <= st.log_start) {
        if (auto s = delete_segment_files(st.bases.front()); !s) return s;
        st.bases.erase(st.bases.begin());
        ++report_.segments_dropped;
        st.removed_any = true;
    }

    auto list = std::make_shared<segment_list>();
    if (auto s = open_segments(st, *list); !s) return s;
    if (auto s = start_over_if_empty(st, *list); !s) return s;
    int64_t leo = list->back()->next_offset();
    if (auto s = recover_producer_state(st, *list, leo); !s) return s;

    log_start_.store(std::max(st.log_start, list->front()->base_offset()));
    log_end_.store(leo);
    // Recovered segments are not known to be synced (the crash may have been
    // the process, not the machine): durability starts at the first of them.
    durable_ = leo;
    for (const auto& s : *list) {
        if (s->synced_size.load() < s->size()) {
            durable_ = s->base_offset();
            break;
        }
    }
    // After a clean shutdown the active segment's index files and the
    // snapshot at the log end are what close() would write again.
    const auto& active = list->back();
    if (st.first_scanned > active->base_offset() && std::binary_search(st.snapshots.begin(), st.snapshots.end(), leo)) {
        at_open_.active = active;
        at_open_.size = active->size();
        at_open_.next_offset = active->next_offset();
        at_open_.snapshot_image = producers_.serialize(leo);
    }
    publish(std::move(list));
    dir_dirty_.store(st.removed_any);
    // No file means {first segment's base, 0}: a checkpoint saying only that
    // is not written (log_format.md), so a new partition costs no sync here.
    saved_ = *cp ? **cp : checkpoint{st.bases.empty() ? st.log_start : st.bases.front(), 0};
    return save_checkpoint();
}

// Opens each segment, recovering those past the recovery point (or all after
// an unclean shutdown, or those whose index files are unusable). A segment
// cut short ends the log: later segments follow a hole, and what they hold was
// never acknowledged as durable.
log_status local_log::open_segments(load_state& st, segment_list& list) {
    auto& fs = *opt_.fs;
    int64_t now = now_ms();
    for (size_t i = 0; i < st.bases.size(); ++i) {
        bool last = i + 1 == st.bases.size();
        auto seg = segment::open(fs, opt_.dir, st.bases[i], now);
        if (!seg) return failure{seg.error()};
        bool recover = st.bases[i] >= st.recovery_point && !opt_.clean_shutdown;
        if (!recover) {
            auto loaded = (*seg)->load_index_files(opt_.fs, !last);
            if (!loaded) return failure{loaded.error()};
            if (!*loaded) {
                recover = true;
                ++report_.indexes_rebuilt;
            }
        }
        uint64_t cut = 0;
        if (recover) {
            // What the last flush recorded is trusted; only the bytes after it are scanned.
            auto journal = read_journal(st.bases[i]);
            auto r = (*seg)->recover(config_.index_interval_bytes, journal ? &*journal : nullptr);
            if (!r) return failure{r.error()};
            resume_journal(**seg, journal);
            if (st.first_scanned == INT64_MAX && (*seg)->recovered_from_journal() > 0)
                st.journal_image = journal->producer_image;
            st.first_scanned = std::min(st.first_scanned, st.bases[i]);
            cut = *r;
            ++report_.segments_recovered;
            report_.bytes_truncated += cut;
            if (cut > 0) spdlog::warn("log {}: cut {} invalid bytes from segment {}", opt_.dir, cut, st.bases[i]);
        }
        if (!list.empty() && (*seg)->base_offset() < list.back()->next_offset())
            return failure{log_error{log_errc::corrupt, "segment " + std::to_string(st.bases[i]) +
                                                            " overlaps the previous one in " + opt_.dir}};
        bool drop_rest = cut > 0 && !last;
        // A closed recovered segment is finalized (after the producer-state
        // replay rebuilt its aborted index) so it need not be scanned again.
        if (recover && !last && !drop_rest) st.to_finalize.push_back(*seg);
        list.push_back(std::move(*seg));
        if (drop_rest) {
            for (size_t j = i + 1; j < st.bases.size(); ++j) {
                if (auto s = delete_segment_files(st.bases[j]); !s) return s;
                ++report_.segments_dropped;
            }
            st.removed_any = true;
            break;
        }
    }
    return ok_v;
}

// Nothing at or after the log start survived: start over at the log start.
log_status local_log::start_over_if_empty(load_state& st, segment_list& list) {
    int64_t leo = list.empty() ? st.log_start : list.back()->next_offset();
    if (st.log_start <= leo && !list.empty()) return ok_v;
    for (const auto& s : list) {
        if (auto d = delete_segment_files(s->base_offset()); !d) return d;
        ++report_.segments_dropped;
    }
    list.clear();
    auto seg = segment::create(*opt_.fs, opt_.dir, st.log_start, now_ms());
    if (!seg) return failure{seg.error()};
    list.push_back(std::move(*seg));
    st.removed_any = true;
    return ok_v;
}

// Replays producer state, then finalizes the recovered closed segments.
// Snapshots past the log end describe batches that are gone; of the rest only
// the newest few are kept: older ones would only serve a rebuild of a segment
// whose index files were lost.
log_status local_log::recover_producer_state(load_state& st, const segment_list& list, int64_t leo) {
    auto& fs = *opt_.fs;
    for (auto it = st.snapshots.begin(); it != st.snapshots.end();) {
        if (*it > leo) {
            (void)fs.remove(io::join_path(opt_.dir, segment_file_name(*it, k_snapshot_suffix)));
            it = st.snapshots.erase(it);
        } else {
            ++it;
        }
    }
    if (auto s = rebuild_producer_state(list, st.first_scanned, st.snapshots, st.journal_image); !s) return s;
    for (const auto& seg : st.to_finalize)
        if (auto s = finalize_segment(*seg); !s) return s;
    for (size_t i = 0; i + 3 < st.snapshots.size(); ++i)
        (void)fs.remove(io::join_path(opt_.dir, segment_file_name(st.snapshots[i], k_snapshot_suffix)));
    return ok_v;
}

}  // namespace ketch::log
