#include "log/offset_index.h"

#include <algorithm>

#include "base/endian.h"
#include "log/index_file.h"
#include "log/log_format.h"

namespace ketch::log {

void offset_index::append(int64_t offset, uint64_t position) {
    std::lock_guard lk(mu_);
    entries_.push_back({uint32_t(offset - base_), uint32_t(position)});
}

offset_index::position_hint offset_index::lookup(int64_t offset) const {
    if (offset < base_) return {base_, 0};
    auto rel = uint64_t(offset - base_);
    std::lock_guard lk(mu_);
    auto it = std::upper_bound(entries_.begin(), entries_.end(), rel,
                               [](uint64_t r, const entry& e) { return r < e.relative_offset; });
    if (it == entries_.begin()) return {base_, 0};
    --it;
    return {base_ + it->relative_offset, it->position};
}

std::optional<offset_index::entry> offset_index::last() const {
    std::lock_guard lk(mu_);
    if (entries_.empty()) return std::nullopt;
    return entries_.back();
}

void offset_index::reset(std::vector<entry> entries) {
    std::lock_guard lk(mu_);
    entries_ = std::move(entries);
}

bytes offset_index::serialize() const {
    std::lock_guard lk(mu_);
    return frame_entries(k_offset_index_magic, k_offset_index_entry_size, base_, entries_,
                         [](uint8_t* at, const entry& e) {
                             store_be<uint32_t>(at, e.relative_offset);
                             store_be<uint32_t>(at + 4, e.position);
                         });
}

std::optional<std::vector<offset_index::entry>> offset_index::parse(byte_view file, int64_t base_offset,
                                                                    uint64_t log_size) {
    return unframe_entries<entry>(
        file, k_offset_index_magic, k_offset_index_entry_size, base_offset,
        [](const uint8_t* at) {
            return entry{load_be<uint32_t>(at), load_be<uint32_t>(at + 4)};
        },
        [log_size](const entry& e, const entry* before) {
            if (e.relative_offset > uint64_t(k_max_relative_offset) || e.position >= log_size) return false;
            return !before || (e.relative_offset > before->relative_offset && e.position > before->position);
        });
}

std::optional<int64_t> offset_index::first_offset_at_or_after(uint64_t position) const {
    std::lock_guard lk(mu_);
    auto it = std::lower_bound(entries_.begin(), entries_.end(), position,
                               [](const entry& e, uint64_t p) { return e.position < p; });
    if (it == entries_.end()) return std::nullopt;
    return base_ + int64_t(it->relative_offset);
}

}  // namespace ketch::log
