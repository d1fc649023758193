// local_log: the compaction swap (Kafka's UnifiedLog.replaceSegments) and the
// entry point of a cleaning pass. The protocol and its crash cases are in
// docs/design/compaction.md; recovery is recover_compaction_files.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "log/compaction_files.h"
#include "log/local_log.h"
#include "log/log_cleaner.h"
#include "log/log_format.h"

namespace ketch::log {

log_result<clean_result> local_log::clean(const compaction_config& c, int64_t now_ms) { return clean(c, now_ms, {}); }

log_result<clean_result> local_log::clean(const compaction_config& c, int64_t now_ms, clean_hook hook) {
    std::lock_guard lk(clean_mu_);
    if (closed_flag_.load()) return failure{log_error{log_errc::closed, "log closed: " + opt_.dir}};
    if (failed_.load()) return failure{storage_failed_error()};
    return log_cleaner(*this, c, now_ms, std::move(hook)).run();
}

int64_t local_log::finalized_end() const {
    std::lock_guard lk(sync_mu_);
    return to_finalize_.empty() ? snapshot()->back()->base_offset() : to_finalize_.front()->base_offset();
}

log_result<local_log::swap_outcome> local_log::replace_segments(const std::vector<std::shared_ptr<segment>>& old,
                                                                std::shared_ptr<segment> cleaned, int64_t end,
                                                                const clean_hook& hook) {
    auto& fs = *opt_.fs;
    const auto& dir = opt_.dir;
    const int64_t base = cleaned->base_offset();
    auto stop = [&hook](clean_step s) { return hook && hook(s); };
    auto fail = [&](const io::io_error& e) -> log_result<swap_outcome> {
        failed_.store(true);
        spdlog::error("log {}: compaction swap failed: {}; refusing writes until reopened", dir, e.message());
        return failure{log_error{log_errc::storage_failed, e.message()}};
    };
    std::vector<int64_t> old_bases;
    {
        std::lock_guard lk(append_mu_);
        if (closed_ || failed_.load()) return swap_outcome::log_changed;
        auto segs = snapshot();
        auto first = std::find(segs->begin(), segs->end(), old.front());
        if (first == segs->end() || size_t(segs->end() - first) <= old.size() ||
            !std::equal(old.begin(), old.end(), first))
            return swap_outcome::log_changed;

        // 1. The decision: .cleaned becomes <B>-<end>.log.swap.
        if (auto st =
                fs.rename(io::join_path(dir, cleaned_file_name(base)), io::join_path(dir, swap_file_name(base, end)));
            !st)
            return failure{from_io(st.error())};  // nothing changed yet
        if (auto st = fs.sync_dir(dir); !st) return fail(st.error());
        if (stop(clean_step::swap_renamed)) return swap_outcome::stopped;

        // 2. Readers see the new list from now on; those holding the old one
        // keep reading the old files through their handles.
        // The cleaned segment keeps the aborted transactions of those it replaces.
        std::vector<aborted_txn> carried;
        for (const auto& s : old) {
            auto a = s->aborted();
            carried.insert(carried.end(), a.begin(), a.end());
        }
        cleaned->reset_aborted(std::move(carried));
        auto list = std::make_shared<segment_list>(segs->begin(), first);
        list->push_back(cleaned);
        list->insert(list->end(), first + long(old.size()), segs->end());
        publish(std::move(list));

        // 3. The old segments step aside: .log -> .log.deleted, index files removed.
        for (const auto& s : old) {
            old_bases.push_back(s->base_offset());
            if (auto st = fs.rename(s->path(k_log_suffix), io::join_path(dir, deleted_file_name(s->base_offset())));
                !st)
                return fail(st.error());
            for (auto suffix : {k_index_suffix, k_time_index_suffix, k_txn_index_suffix, k_flushed_suffix}) {
                auto st = fs.remove(s->path(suffix));
                if (!st && st.error().kind != io::io_errc::not_found) return fail(st.error());
            }
            if (stop(clean_step::old_renamed)) return swap_outcome::stopped;
        }
        if (auto st = fs.sync_dir(dir); !st) return fail(st.error());

        // 4. The swap file takes the segment's name.
        if (auto st = fs.rename(io::join_path(dir, swap_file_name(base, end)), cleaned->path(k_log_suffix)); !st)
            return fail(st.error());
        if (auto st = fs.sync_dir(dir); !st) return fail(st.error());
        if (stop(clean_step::swap_in_place)) return swap_outcome::stopped;
    }
    // 5. Index files (rebuilt by recovery if a crash comes first), then the old data.
    if (auto st = cleaned->write_index_files(fs); !st)
        spdlog::warn("log {}: index files of cleaned segment {}: {}", dir, base, st.error().message);
    else
        cleaned->keep_indexes_on_disk(opt_.fs);
    if (stop(clean_step::index_written)) return swap_outcome::stopped;
    for (int64_t b : old_bases) {
        if (auto st = fs.remove(io::join_path(dir, deleted_file_name(b))); !st)
            spdlog::warn("log {}: removing replaced segment {}: {}", dir, b, st.error().message());
    }
    return swap_outcome::swapped;
}

}  // namespace ketch::log
