#include "log/time_index.h"

#include <algorithm>

#include "base/endian.h"
#include "log/index_file.h"
#include "log/log_format.h"

namespace ketch::log {

static_assert(time_index_entry::size == k_time_index_entry_size);

time_index_entry time_index_entry::decode(const uint8_t* at) {
    return {load_be<int64_t>(at), load_be<uint32_t>(at + 8)};
}

void time_index_entry::encode(uint8_t* at) const {
    store_be<int64_t>(at, timestamp);
    store_be<uint32_t>(at + 8, relative_offset);
}

void time_index::observe(int64_t batch_max_timestamp, int64_t batch_base_offset) {
    std::lock_guard lk(mu_);
    if (batch_max_timestamp > max_.timestamp) max_ = {batch_max_timestamp, batch_base_offset};
}

void time_index::append_max() {
    std::lock_guard lk(mu_);
    if (max_.timestamp == k_no_timestamp || closed_locked()) return;  // closed: its entries are final
    if (auto last = last_locked(); last && max_.timestamp <= last->timestamp) return;
    entries_.push_back({max_.timestamp, uint32_t(max_.offset - base_)});
}

time_index::max_entry time_index::max() const {
    std::lock_guard lk(mu_);
    return max_;
}

int64_t time_index::lookup(int64_t timestamp) const {
    std::unique_lock lk(mu_);
    auto found = split(lk, [timestamp](const entry& e) { return e.timestamp <= timestamp; }).last_true;
    if (!found) return base_;
    return base_ + found->relative_offset;
}

void time_index::reset(std::vector<entry> entries, max_entry max) {
    std::lock_guard lk(mu_);
    reset_locked(std::move(entries));
    max_ = max;
}

bytes time_index::serialize() const {
    return frame_entries(k_time_index_magic, entry::size, base_, entries(),
                         [](uint8_t* at, const entry& e) { e.encode(at); });
}

std::optional<std::vector<time_index::entry>> time_index::parse(byte_view file, int64_t base_offset) {
    return unframe_entries<entry>(file, k_time_index_magic, entry::size, base_offset, entry::decode,
                                  [](const entry& e, const entry* before) {
                                      if (e.relative_offset > uint64_t(k_max_relative_offset)) return false;
                                      return !before || entry::follows(e, *before);
                                  });
}

}  // namespace ketch::log
