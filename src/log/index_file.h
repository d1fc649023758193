// The envelope shared by .index and .timeindex files (docs/design/log_format.md):
//
//   file    := header entry* trailer
//   header  := magic:u32 version:u16 entry_size:u16 base_offset:i64
//   trailer := entry_count:u32 crc32c:u32      (CRC-32C of header and entries)
//
// Index files are written whole when a segment is closed (and at a clean stop);
// the trailer lets a reader tell a complete file from a torn or foreign one.
// While a segment is written its file holds the header and the entries spilled
// so far, no trailer (index_entries.h): only a clean start reads it whole.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "io/file_system.h"

namespace ketch::log {

// Writes the header at `at` (k_index_header_size bytes); returns the byte after it.
uint8_t* put_index_file_header(uint8_t* at, uint32_t magic, uint16_t entry_size, int64_t base_offset);

// Wraps `entries` (entry_size bytes each) in the header and trailer.
bytes frame_index_file(uint32_t magic, uint16_t entry_size, int64_t base_offset, byte_view entries);

// The entries region of a well-formed file for this magic, entry size and base
// offset; nullopt when anything (length, magic, version, count, CRC) is off.
std::optional<byte_view> unframe_index_file(byte_view file, uint32_t magic, uint16_t entry_size, int64_t base_offset);

// frame_index_file of `entries`, each written by put(at, entry) into its
// entry_size bytes.
template <class Entry, class Put>
bytes frame_entries(uint32_t magic, uint16_t entry_size, int64_t base_offset, const std::vector<Entry>& entries,
                    Put put) {
    bytes body(entries.size() * entry_size);
    uint8_t* at = body.data();
    for (const auto& e : entries) {
        put(at, e);
        at += entry_size;
    }
    return frame_index_file(magic, entry_size, base_offset, body);
}

// The entries of unframe_index_file, each read by get(at); nullopt when the
// frame is off or fits(entry, the entry before or nullptr) refuses one.
template <class Entry, class Get, class Fits>
std::optional<std::vector<Entry>> unframe_entries(byte_view file, uint32_t magic, uint16_t entry_size,
                                                  int64_t base_offset, Get get, Fits fits) {
    auto body = unframe_index_file(file, magic, entry_size, base_offset);
    if (!body) return std::nullopt;
    std::vector<Entry> out;
    out.reserve(body->size() / entry_size);
    for (size_t i = 0; i < body->size(); i += entry_size) {
        Entry e = get(body->data() + i);
        if (!fits(e, out.empty() ? nullptr : &out.back())) return std::nullopt;
        out.push_back(e);
    }
    return out;
}

// What a written index file says of itself, read without its entries (a
// clean start opens index files lazily, index_entries.h): header and trailer
// checked against the file's size, the entry count, the trailer's CRC-32C and
// the last entry's bytes (empty when there is none). The CRC over the entries
// is checked when they are first read.
struct index_file_summary {
    size_t count = 0;
    uint32_t crc = 0;
    bytes last;
};
// nullopt when the envelope is off (a malformed or foreign file); an error
// when the file cannot be read (io_errc::not_found when it is not there).
io::io_result<std::optional<index_file_summary>> read_index_file_summary(io::file_system& fs, const std::string& path,
                                                                         uint32_t magic, uint16_t entry_size,
                                                                         int64_t base_offset);

// A lazily opened index file that did not hold what its open found: logged
// and removed, so that the next start rebuilds it from its segment.
void drop_bad_index_file(io::file_system& fs, const std::string& path);

// Blocks of entries read straight from a written index file (a closed
// segment's, index_entries.h): the file is opened for each read and closed.
struct index_file_blocks {
    std::shared_ptr<io::file_system> fs;
    std::string path;
    size_t count = 0;       // entries in the file
    size_t entry_size = 0;  // bytes per entry
    // The raw bytes of entries [first, first + n); empty when unreadable.
    bytes read(size_t first, size_t n) const;
};

}  // namespace ketch::log
