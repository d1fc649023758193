#include "log/offset_index.h"

#include <algorithm>

#include "base/endian.h"
#include "log/index_file.h"
#include "log/log_format.h"

namespace ketch::log {

static_assert(offset_index_entry::size == k_offset_index_entry_size);

offset_index_entry offset_index_entry::decode(const uint8_t* at) {
    return {load_be<uint32_t>(at), load_be<uint32_t>(at + 4)};
}

void offset_index_entry::encode(uint8_t* at) const {
    store_be<uint32_t>(at, relative_offset);
    store_be<uint32_t>(at + 4, position);
}

void offset_index::append(int64_t offset, uint64_t position) {
    std::lock_guard lk(mu_);
    if (closed_locked()) return;  // nothing is appended to a closed segment
    entries_.push_back({uint32_t(offset - base_), uint32_t(position)});
}

offset_index::position_hint offset_index::lookup(int64_t offset) const {
    if (offset < base_) return {base_, 0};
    auto rel = uint64_t(offset - base_);
    std::unique_lock lk(mu_);
    auto found = split(lk, [rel](const entry& e) { return e.relative_offset <= rel; }).last_true;
    if (!found) return {base_, 0};
    return {base_ + found->relative_offset, found->position};
}

std::optional<offset_index::entry> offset_index::last() const {
    std::lock_guard lk(mu_);
    return last_locked();
}

void offset_index::reset(std::vector<entry> entries) {
    std::lock_guard lk(mu_);
    reset_locked(std::move(entries));
}

bytes offset_index::serialize() const {
    return frame_entries(k_offset_index_magic, entry::size, base_, entries(),
                         [](uint8_t* at, const entry& e) { e.encode(at); });
}

std::optional<std::vector<offset_index::entry>> offset_index::parse(byte_view file, int64_t base_offset,
                                                                    uint64_t log_size) {
    return unframe_entries<entry>(file, k_offset_index_magic, entry::size, base_offset, entry::decode,
                                  [log_size](const entry& e, const entry* before) {
                                      if (e.relative_offset > uint64_t(k_max_relative_offset) || e.position >= log_size)
                                          return false;
                                      return !before || entry::follows(e, *before);
                                  });
}

std::optional<int64_t> offset_index::first_offset_at_or_after(uint64_t position) const {
    std::unique_lock lk(mu_);
    auto found = split(lk, [position](const entry& e) { return e.position < position; }).first_false;
    if (!found) return std::nullopt;
    return base_ + int64_t(found->relative_offset);
}

}  // namespace ketch::log
