// The on-disk layout of a partition directory, as constants. The byte grammar
// is written down in docs/design/log_format.md and pinned by
// tests/unit/log/log_format_golden_test.cc; change all three together.
//
//   <dir>/<20-digit base offset>.log        record batches, verbatim
//   <dir>/<20-digit base offset>.index      sparse offset index (closed segments)
//   <dir>/<20-digit base offset>.timeindex  time index (closed segments)
//   <dir>/<20-digit base offset>.txnindex   aborted transactions (Kafka's layout; closed segments)
//   <dir>/<20-digit offset>.snapshot        producer state before that offset
//   <dir>/<20-digit base offset>.flushed    flush journal (segments not yet finalized)
//   <dir>/checkpoint                        log start offset + recovery point
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ketch::log {

inline constexpr std::string_view k_log_suffix = ".log";
inline constexpr std::string_view k_index_suffix = ".index";
inline constexpr std::string_view k_time_index_suffix = ".timeindex";
inline constexpr std::string_view k_txn_index_suffix = ".txnindex";
inline constexpr std::string_view k_snapshot_suffix = ".snapshot";
inline constexpr std::string_view k_flushed_suffix = ".flushed";  // flush journal (segment_journal.h)
inline constexpr std::string_view k_tmp_suffix = ".tmp";
inline constexpr std::string_view k_checkpoint_file = "checkpoint";
inline constexpr size_t k_segment_name_digits = 20;

// Index files: header, entries, trailer (all integers big-endian).
inline constexpr uint32_t k_offset_index_magic = 0x4B4F4958;  // "KOIX"
inline constexpr uint32_t k_time_index_magic = 0x4B544958;    // "KTIX"
inline constexpr uint16_t k_index_version = 1;
inline constexpr size_t k_index_header_size = 16;       // magic u32, version u16, entry size u16, base offset i64
inline constexpr size_t k_index_trailer_size = 8;       // entry count u32, crc32c u32 of everything before
inline constexpr size_t k_offset_index_entry_size = 8;  // relative offset u32, position u32
inline constexpr size_t k_time_index_entry_size = 12;   // timestamp i64, relative offset u32

// Aborted-transactions index: Kafka's .txnindex entries back to back, no
// header: version i16 (0), producer id i64, first offset i64, last offset
// i64, last stable offset i64.
inline constexpr int16_t k_txn_index_version = 0;
inline constexpr size_t k_txn_index_entry_size = 34;

// Producer-state snapshot: header (magic u32, version u16, reserved u16,
// offset i64, producer count u32), producers, trailer crc32c u32.
inline constexpr uint32_t k_producer_snapshot_magic = 0x4B505353;  // "KPSS"
inline constexpr uint16_t k_producer_snapshot_version = 1;
inline constexpr size_t k_producer_snapshot_header_size = 20;

// Batches in a segment: offsets relative to the segment base must fit in an
// int32, and positions in a uint32 (segment_bytes is capped at INT32_MAX).
inline constexpr int64_t k_max_relative_offset = 0x7FFFFFFF;
inline constexpr uint64_t k_max_segment_bytes = 0x7FFFFFFF;

// "00000000000000000042.log" for (42, ".log").
std::string segment_file_name(int64_t base_offset, std::string_view suffix);
// The base offset of "<20 digits><suffix>", or nullopt for any other name.
std::optional<int64_t> parse_segment_file_name(std::string_view name, std::string_view suffix);

}  // namespace ketch::log
