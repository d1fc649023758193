// offset_index: the sparse map from a batch's base offset to its file
// position within one segment. An entry is added for a batch when at least
// index_interval_bytes of batches lie between it and the previous entry's
// batch (or the segment start); a lookup then scans at most that many bytes.
//
// Memory keeps about one entry in k_index_stride, the rest is in <base>.index:
// spilled there in blocks while the segment is written, written whole when it
// is closed (index_entries.h). Thread-safety: one writer (the segment's appender) and
// any number of readers; `mu_` guards the vector and is held only for the
// duration of a push_back or a binary search.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "log/index_entries.h"
#include "log/log_format.h"

namespace ketch::log {

struct offset_index_entry {
    uint32_t relative_offset = 0;  // batch base offset - segment base offset
    uint32_t position = 0;         // byte position of the batch in the .log file
    friend bool operator==(const offset_index_entry&, const offset_index_entry&) = default;

    // The file's encoding (log_format.md): relative offset u32, position u32.
    static constexpr size_t size = 8;
    static constexpr uint32_t magic = k_offset_index_magic;  // of the .index file
    static offset_index_entry decode(const uint8_t* at);
    void encode(uint8_t* at) const;
    // Entries strictly increase in both fields.
    static bool follows(const offset_index_entry& e, const offset_index_entry& before) {
        return e.relative_offset > before.relative_offset && e.position > before.position;
    }
};

class offset_index : public index_entries<offset_index_entry> {
public:
    struct position_hint {
        int64_t offset;     // base offset of the indexed batch (segment base when none)
        uint64_t position;  // where to start scanning for a given offset
    };

    explicit offset_index(int64_t base_offset) : index_entries(base_offset) {}

    // Adds an entry; offset and position must exceed the last entry's.
    void append(int64_t offset, uint64_t position);
    // The last entry whose offset is <= `offset`; {base, 0} when there is none.
    position_hint lookup(int64_t offset) const;
    std::optional<entry> last() const;
    // OffsetIndex.fetchUpperBoundOffset: the offset of the first entry whose
    // position is >= `position`; nullopt when there is none.
    std::optional<int64_t> first_offset_at_or_after(uint64_t position) const;
    void reset(std::vector<entry> entries);

    // The .index file image (index_file.h envelope).
    bytes serialize() const;
    // Entries of a .index file image, or nullopt if it is malformed, belongs to
    // another segment, is out of order, or points at or past `log_size`.
    static std::optional<std::vector<entry>> parse(byte_view file, int64_t base_offset, uint64_t log_size);
};

}  // namespace ketch::log
