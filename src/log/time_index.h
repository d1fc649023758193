// time_index: what a segment knows about timestamps.
//
// It tracks the segment's largest batch max_timestamp so far and the base
// offset of the first batch that reached it, and keeps sparse entries
// (max timestamp so far, that batch's offset), added with each offset index
// entry and once more when the segment is closed. Timestamps of the entries
// strictly increase, so every batch before an entry's batch has a max
// timestamp below the entry's: a search for timestamp T may start at the
// batch of the last entry whose timestamp is <= T.
//
// Memory keeps about one entry in k_index_stride, the rest is in
// <base>.timeindex: spilled there in blocks while the segment is written,
// written whole when it is closed (index_entries.h). Thread-safety as offset_index: one writer, many readers,
// `mu_` held briefly.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "log/index_entries.h"
#include "log/log_format.h"

namespace ketch::log {

inline constexpr int64_t k_no_timestamp = -1;

struct time_index_entry {
    int64_t timestamp = 0;
    uint32_t relative_offset = 0;  // base offset of that batch - segment base
    friend bool operator==(const time_index_entry&, const time_index_entry&) = default;

    // The file's encoding (log_format.md): timestamp i64, relative offset u32.
    static constexpr size_t size = 12;
    static constexpr uint32_t magic = k_time_index_magic;  // of the .timeindex file
    static time_index_entry decode(const uint8_t* at);
    void encode(uint8_t* at) const;
    // Entries strictly increase in both fields.
    static bool follows(const time_index_entry& e, const time_index_entry& before) {
        return e.timestamp > before.timestamp && e.relative_offset > before.relative_offset;
    }
};

class time_index : public index_entries<time_index_entry> {
public:
    struct max_entry {
        int64_t timestamp = k_no_timestamp;
        int64_t offset = 0;  // base offset of the first batch with that max timestamp
        friend bool operator==(const max_entry&, const max_entry&) = default;
    };

    explicit time_index(int64_t base_offset) : index_entries(base_offset), max_{k_no_timestamp, base_offset} {}

    // Records that a batch with this max timestamp was appended at this offset.
    void observe(int64_t batch_max_timestamp, int64_t batch_base_offset);
    // Adds the max so far as an entry unless it does not exceed the last one.
    void append_max();
    max_entry max() const;
    // Where a search for `timestamp` may start: the offset of the last entry
    // whose timestamp is <= it; the segment base when there is none.
    int64_t lookup(int64_t timestamp) const;
    // Replaces everything (recovery, loading a closed segment).
    void reset(std::vector<entry> entries, max_entry max);

    bytes serialize() const;
    // Entries of a .timeindex image, or nullopt if malformed or out of order.
    static std::optional<std::vector<entry>> parse(byte_view file, int64_t base_offset);

private:
    max_entry max_;
};

}  // namespace ketch::log
