#include "log/time_index.h"

#include <algorithm>

#include "base/endian.h"
#include "log/index_file.h"
#include "log/log_format.h"

namespace ketch::log {

void time_index::observe(int64_t batch_max_timestamp, int64_t batch_base_offset) {
    std::lock_guard lk(mu_);
    if (batch_max_timestamp > max_.timestamp) max_ = {batch_max_timestamp, batch_base_offset};
}

void time_index::append_max() {
    std::lock_guard lk(mu_);
    if (max_.timestamp == k_no_timestamp) return;
    if (!entries_.empty() && max_.timestamp <= entries_.back().timestamp) return;
    entries_.push_back({max_.timestamp, uint32_t(max_.offset - base_)});
}

time_index::max_entry time_index::max() const {
    std::lock_guard lk(mu_);
    return max_;
}

int64_t time_index::lookup(int64_t timestamp) const {
    std::lock_guard lk(mu_);
    auto it = std::upper_bound(entries_.begin(), entries_.end(), timestamp,
                               [](int64_t t, const entry& e) { return t < e.timestamp; });
    if (it == entries_.begin()) return base_;
    --it;
    return base_ + it->relative_offset;
}

void time_index::reset(std::vector<entry> entries, max_entry max) {
    std::lock_guard lk(mu_);
    entries_ = std::move(entries);
    max_ = max;
}

bytes time_index::serialize() const {
    std::lock_guard lk(mu_);
    return frame_entries(k_time_index_magic, k_time_index_entry_size, base_, entries_, [](uint8_t* at, const entry& e) {
        store_be<int64_t>(at, e.timestamp);
        store_be<uint32_t>(at + 8, e.relative_offset);
    });
}

std::optional<std::vector<time_index::entry>> time_index::parse(byte_view file, int64_t base_offset) {
    return unframe_entries<entry>(
        file, k_time_index_magic, k_time_index_entry_size, base_offset,
        [](const uint8_t* at) {
            return entry{load_be<int64_t>(at), load_be<uint32_t>(at + 8)};
        },
        [](const entry& e, const entry* before) {
            if (e.relative_offset > uint64_t(k_max_relative_offset)) return false;
            return !before || (e.timestamp > before->timestamp && e.relative_offset > before->relative_offset);
        });
}

}  // namespace ketch::log
