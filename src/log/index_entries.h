// What a segment's two indexes share (offset_index.h, time_index.h): the
// segment's base offset and the entries, in order, under a mutex held only
// for the duration of a push_back, a copy or a binary search (one writer, the
// segment's appender, and any number of readers).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace ketch::log {

template <class Entry>
class index_entries {
public:
    using entry = Entry;

    explicit index_entries(int64_t base_offset) : base_(base_offset) {}

    int64_t base_offset() const { return base_; }
    size_t size() const {
        std::lock_guard lk(mu_);
        return entries_.size();
    }
    std::vector<Entry> entries() const {
        std::lock_guard lk(mu_);
        return entries_;
    }
    // Entries from the first-th on (the flush journal's delta).
    std::vector<Entry> entries_from(size_t first) const {
        std::lock_guard lk(mu_);
        if (first >= entries_.size()) return {};
        return {entries_.begin() + long(first), entries_.end()};
    }

protected:
    const int64_t base_;
    mutable std::mutex mu_;
    std::vector<Entry> entries_;
};

}  // namespace ketch::log
