// batch_reader: walks the batch headers stored in a byte range of a segment
// file, reading the file in chunks so that small batches cost no system call
// each. It checks framing only (length, magic, offsets delta); the CRC check
// is verify_batch_crc, used by recovery.
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "io/file.h"
#include "log/log_error.h"
#include "record/batch_header.h"

namespace ketch::log {

struct batch_location {
    uint64_t position = 0;  // of the batch's first byte in the segment file
    record::batch_header header;

    uint64_t size() const { return header.total_size(); }
    uint64_t end() const { return position + size(); }
};

class batch_reader {
public:
    // Batches in [start, end) of `f`; `f` must outlive the reader.
    batch_reader(const io::file& f, uint64_t start, uint64_t end, size_t chunk_bytes = 16 * 1024);

    // The next batch, or nullopt at `end`. Fails with log_errc::corrupt when
    // the bytes at the current position are not a plausible v2 batch that ends
    // by `end` (a torn or garbage tail), and with log_errc::io on a read error.
    // After an error the reader stays at the bad position.
    log_result<std::optional<batch_location>> next();

    // Where the next batch starts (the end of the last one returned).
    uint64_t position() const { return pos_; }

    // The bytes of batch `b` (one next() returned) if the last chunk read
    // holds all of them; empty otherwise. Valid until the next call of next().
    byte_view chunk_bytes_of(const batch_location& b) const;

private:
    const io::file& f_;
    uint64_t pos_;
    uint64_t end_;
    bytes buf_;
    uint64_t buf_pos_ = 0;
    size_t buf_len_ = 0;
};

// Reads the batch and checks its CRC-32C (bytes 21..end); log_errc::corrupt on
// a mismatch. `scratch` is reused between calls to avoid allocations.
log_status verify_batch_crc(const io::file& f, const batch_location& b, bytes& scratch);

// The same check on a batch's bytes in memory (all of them, header included).
log_status verify_batch_crc(byte_view whole, const batch_location& b, const std::string& path);

// The whole batch, header included.
log_result<bytes> read_batch(const io::file& f, const batch_location& b);

}  // namespace ketch::log
