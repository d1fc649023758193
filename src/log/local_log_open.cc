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
    if (auto st = opt.fs->mkdir(opt.dir); !st) return failure{from_io(st.error())};
    auto self = std::make_shared<local_log>(private_tag{}, std::move(opt));
    if (auto st = self->load(); !st) return failure{st.error()};
    if (self->opt_.flusher) self->opt_.flusher->watch(self->weak_from_this());
    return self;
}

log_status local_log::delete_segment_files(int64_t base) {
    for (auto suffix : {k_index_suffix, k_time_index_suffix, k_txn_index_suffix, k_log_suffix}) {
        auto st = opt_.fs->remove(io::join_path(opt_.dir, segment_file_name(base, suffix)));
        if (!st && st.error().kind != io::io_errc::not_found) return failure{from_io(st.error())};
    }
    return ok_v;
}

log_status local_log::load() {
    auto& fs = *opt_.fs;
    const auto& dir = opt_.dir;
    // An interrupted compaction swap is finished (or its leftovers removed) first.
    auto swaps = recover_compaction_files(fs, dir);
    if (!swaps) return failure{swaps.error()};
    report_.swaps_completed = swaps->swaps_completed;
    auto entries = fs.list_dir(dir);
    if (!entries) return failure{from_io(entries.error())};

    // What is there: segment logs, index files, leftovers of atomic writes.
    std::vector<int64_t> bases, snapshots;
    std::map<int64_t, std::vector<std::string>> index_files;
    bool removed_any = false;
    for (const auto& e : *entries) {
        if (e.is_dir) continue;
        if (auto b = parse_segment_file_name(e.name, k_log_suffix)) {
            bases.push_back(*b);
        } else if (auto i = parse_segment_file_name(e.name, k_index_suffix)) {
            index_files[*i].push_back(e.name);
        } else if (auto t = parse_segment_file_name(e.name, k_time_index_suffix)) {
            index_files[*t].push_back(e.name);
        } else if (auto x = parse_segment_file_name(e.name, k_txn_index_suffix)) {
            index_files[*x].push_back(e.name);
        } else if (auto p = parse_segment_file_name(e.name, k_snapshot_suffix)) {
            snapshots.push_back(*p);
        } else if (e.name.ends_with(k_tmp_suffix)) {
            (void)fs.remove(io::join_path(dir, e.name));
            removed_any = true;
        }
    }
    std::sort(bases.begin(), bases.end());
    std::sort(snapshots.begin(), snapshots.end());
    for (const auto& [base, names] : index_files) {
        if (std::binary_search(bases.begin(), bases.end(), base)) continue;
        for (const auto& n : names) (void)fs.remove(io::join_path(dir, n));  // orphan index
        removed_any = true;
    }

    auto cp = read_checkpoint(fs, dir);
    if (!cp) return failure{cp.error()};
    int64_t lso = *cp ? (*cp)->log_start_offset : (bases.empty() ? 0 : bases.front());
    int64_t recovery_point = *cp ? (*cp)->recovery_point : 0;

    // Segments wholly below the log start: an interrupted deletion.
    while (bases.size() >= 2 && bases[1] <= lso) {
        if (auto st = delete_segment_files(bases.front()); !st) return st;
        bases.erase(bases.begin());
        ++report_.segments_dropped;
        removed_any = true;
    }

    auto list = std::make_shared<segment_list>();
    int64_t now = now_ms();
    uint32_t interval = config_.index_interval_bytes;
    int64_t first_scanned = INT64_MAX;  // producer state replays from a snapshot at or below it
    std::vector<std::shared_ptr<segment>> to_finalize_now;
    for (size_t i = 0; i < bases.size(); ++i) {
        bool last = i + 1 == bases.size();
        auto seg = segment::open(fs, dir, bases[i], now);
        if (!seg) return failure{seg.error()};
        bool recover = bases[i] >= recovery_point && !(opt_.clean_shutdown);
        if (!recover) {
            auto loaded = (*seg)->load_index_files(fs);
            if (!loaded) return failure{loaded.error()};
            if (!*loaded) {
                recover = true;
                ++report_.indexes_rebuilt;
            }
        }
        uint64_t cut = 0;
        if (recover) {
            auto r = (*seg)->recover(interval);
            if (!r) return failure{r.error()};
            first_scanned = std::min(first_scanned, bases[i]);
            cut = *r;
            ++report_.segments_recovered;
            report_.bytes_truncated += cut;
            if (cut > 0)
                spdlog::warn("log {}: cut {} invalid bytes from segment {}", dir, cut, bases[i]);
        }
        if (!list->empty() && (*seg)->base_offset() < list->back()->next_offset())
            return failure{log_error{log_errc::corrupt, "segment " + std::to_string(bases[i]) +
                                                            " overlaps the previous one in " + dir}};
        bool drop_rest = cut > 0 && !last;
        if (recover && !last && !drop_rest) {
            // A closed segment: finalize it (after the producer-state replay
            // rebuilt its aborted index) so it need not be scanned again.
            to_finalize_now.push_back(*seg);
        }
        list->push_back(std::move(*seg));
        if (drop_rest) {
            // Later segments follow a hole: what they hold was never acknowledged as durable.
            for (size_t j = i + 1; j < bases.size(); ++j) {
                if (auto st = delete_segment_files(bases[j]); !st) return st;
                ++report_.segments_dropped;
            }
            removed_any = true;
            break;
        }
    }

    int64_t leo = list->empty() ? lso : list->back()->next_offset();
    if (lso > leo || list->empty()) {
        // Nothing at or after the log start survived: start over at the log start.
        for (const auto& s : *list) {
            if (auto st = delete_segment_files(s->base_offset()); !st) return st;
            ++report_.segments_dropped;
        }
        list->clear();
        auto seg = segment::create(fs, dir, lso, now);
        if (!seg) return failure{seg.error()};
        list->push_back(std::move(*seg));
        leo = lso;
        removed_any = true;
    }
    lso = std::max(lso, list->front()->base_offset());

    // Snapshots past the log end describe batches that are gone.
    for (auto it = snapshots.begin(); it != snapshots.end();) {
        if (*it > leo) {
            (void)fs.remove(io::join_path(dir, segment_file_name(*it, k_snapshot_suffix)));
            it = snapshots.erase(it);
        } else {
            ++it;
        }
    }
    if (auto st = rebuild_producer_state(*list, first_scanned, snapshots); !st) return st;
    for (const auto& s : to_finalize_now)
        if (auto st = finalize_segment(*s); !st) return st;
    // Keep the newest few snapshots: older ones would only serve a rebuild of
    // a segment whose index files were lost.
    for (size_t i = 0; i + 3 < snapshots.size(); ++i)
        (void)fs.remove(io::join_path(dir, segment_file_name(snapshots[i], k_snapshot_suffix)));

    log_start_.store(lso);
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
    publish(std::move(list));
    dir_dirty_.store(removed_any);
    if (*cp) saved_ = **cp;
    if (auto st = save_checkpoint(); !st) return st;
    return ok_v;
}

}  // namespace ketch::log
