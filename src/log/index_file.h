// The envelope shared by .index and .timeindex files (docs/design/log_format.md):
//
//   file    := header entry* trailer
//   header  := magic:u32 version:u16 entry_size:u16 base_offset:i64
//   trailer := entry_count:u32 crc32c:u32      (CRC-32C of header and entries)
//
// Index files are written whole, once, when a segment is closed; the trailer
// lets a reader tell a complete file from a torn or foreign one.
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"

namespace ketch::log {

// Wraps `entries` (entry_size bytes each) in the header and trailer.
bytes frame_index_file(uint32_t magic, uint16_t entry_size, int64_t base_offset, byte_view entries);

// The entries region of a well-formed file for this magic, entry size and base
// offset; nullopt when anything (length, magic, version, count, CRC) is off.
std::optional<byte_view> unframe_index_file(byte_view file, uint32_t magic, uint16_t entry_size, int64_t base_offset);

}  // namespace ketch::log
