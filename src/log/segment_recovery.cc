// segment::recover: rebuilds a segment from what is really in its .log file.
#include "log/log_format.h"
#include "log/segment.h"

namespace ketch::log {

log_result<uint64_t> segment::recover(uint32_t index_interval_bytes) {
    auto on_disk = file_->size();
    if (!on_disk) return failure{from_io(on_disk.error())};

    index_.reset({});
    times_.reset({}, {k_no_timestamp, base_});
    last_indexed_position_ = 0;
    first_batch_ts_ = k_no_timestamp;

    batch_reader r(*file_, 0, *on_disk, 256 * 1024);
    bytes scratch;
    uint64_t valid = 0;
    int64_t next = base_;
    for (;;) {
        auto b = r.next();
        if (!b) {
            if (b.error().code == log_errc::corrupt) break;  // torn or garbage tail
            return failure{b.error()};
        }
        if (!*b) break;
        const auto& h = (*b)->header;
        // Offsets must increase and stay representable relative to the base.
        if (h.base_offset < next || h.last_offset() - base_ > k_max_relative_offset) break;
        // From the chunk the reader just read when it holds the whole batch
        // (the data is read once), else read again.
        byte_view whole = r.chunk_bytes_of(**b);
        auto st = whole.empty() ? verify_batch_crc(*file_, **b, scratch) : verify_batch_crc(whole, **b, file_->path());
        if (!st) {
            if (st.error().code == log_errc::corrupt) break;
            return failure{st.error()};
        }
        index_batch(h, (*b)->position, index_interval_bytes);
        next = h.last_offset() + 1;
        valid = (*b)->end();
    }

    uint64_t cut = *on_disk - valid;
    if (cut > 0) {
        if (auto st = file_->truncate(valid); !st) return failure{from_io(st.error())};
    }
    size_.store(valid, std::memory_order_release);
    next_offset_.store(next, std::memory_order_release);
    synced_size.store(0);  // unknown: the flusher syncs it again
    return cut;
}

}  // namespace ketch::log
