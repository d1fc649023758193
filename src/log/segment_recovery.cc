// segment::recover: rebuilds a segment from what is really in its .log file,
// from the start or from the end of what its flush journal says was synced.
#include "log/log_format.h"
#include "log/segment.h"

namespace ketch::log {

// The journal's last record names a batch that is in the file as recorded:
// same position, end, last offset and CRC field. Anything else (a journal of
// an older file with this name, a file cut below it) is not trusted.
bool segment::journal_matches(const journal_contents& j, uint64_t on_disk) const {
    const auto& at = j.at;
    if (at.size > on_disk || at.size > k_max_segment_bytes || at.last_batch_position >= at.size) return false;
    if (at.next_offset <= base_ || at.next_offset - 1 - base_ > k_max_relative_offset) return false;
    if (!j.index.empty() && j.index.back().position > at.last_batch_position) return false;
    batch_reader r(*file_, at.last_batch_position, at.size, record::k_batch_header_size);
    auto b = r.next();
    if (!b || !*b) return false;
    const auto& h = (*b)->header;
    return (*b)->end() == at.size && h.last_offset() + 1 == at.next_offset && h.crc == at.last_batch_crc &&
           h.base_offset >= base_;
}

log_result<uint64_t> segment::recover(uint32_t index_interval_bytes, const journal_contents* flushed) {
    auto on_disk = file_->size();
    if (!on_disk) return failure{from_io(on_disk.error())};

    uint64_t valid = 0;
    int64_t next = base_;
    if (flushed && journal_matches(*flushed, *on_disk)) {
        const auto& at = flushed->at;
        index_.reset(flushed->index);
        times_.reset(flushed->times, at.max);
        reset_aborted(flushed->aborted);
        last_indexed_position_ = at.last_indexed_position;
        first_batch_ts_ = at.first_batch_ts;
        last_batch_position_ = at.last_batch_position;
        last_batch_crc_ = at.last_batch_crc;
        valid = at.size;
        next = at.next_offset;
    } else {
        index_.reset({});
        times_.reset({}, {k_no_timestamp, base_});
        last_indexed_position_ = 0;
        first_batch_ts_ = k_no_timestamp;
    }
    from_journal_ = valid;

    batch_reader r(*file_, valid, *on_disk, 256 * 1024);
    bytes scratch;
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
    // The journal's prefix was synced before it was recorded; the rest is
    // unknown: the flusher syncs it again.
    synced_size.store(from_journal_);
    return cut;
}

journal_point segment::flush_point() const {
    journal_point p;
    p.size = size();
    p.next_offset = next_offset();
    p.last_batch_position = last_batch_position_;
    p.last_batch_crc = last_batch_crc_;
    p.first_batch_ts = first_batch_ts_;
    p.max = times_.max();
    p.last_indexed_position = last_indexed_position_;
    return p;
}

}  // namespace ketch::log
