#include "log/record_timestamps.h"

#include <algorithm>

#include "record/record_reader.h"

namespace ketch::log {
namespace {

int32_t epoch_of(const record::batch_header& h) {
    return h.partition_leader_epoch >= 0 ? h.partition_leader_epoch : -1;
}

}  // namespace

bool decode_record_timestamps(byte_view batch, const record_visitor& visit) {
    auto reader = record::record_reader::open(batch);
    if (!reader) return false;
    record::record_view rec;
    for (;;) {
        auto more = reader->next(rec);
        if (!more) return false;
        if (!*more) return true;
        const auto& h = reader->header();
        if (!visit(h.base_offset + rec.offset_delta, record::record_timestamp(h, rec))) return true;
    }
}

log_result<std::optional<timestamp_offset>> first_record_at_or_after(const io::file& f, const batch_location& b,
                                                                     int64_t target, int64_t min_offset,
                                                                     const record_timestamp_reader& reader) {
    const auto& h = b.header;
    int64_t first = std::max(h.base_offset, min_offset);
    if (h.max_timestamp < target || first > h.last_offset()) return std::optional<timestamp_offset>{};
    timestamp_offset approx{h.max_timestamp, first, epoch_of(h)};
    if (h.ts_type() == record::timestamp_type::log_append_time) return std::optional(approx);

    auto bytes = read_batch(f, b);
    if (!bytes) return failure{bytes.error()};
    std::optional<timestamp_offset> found;
    const auto& decode = reader ? reader : decode_record_timestamps;
    bool decoded = decode(*bytes, [&](int64_t offset, int64_t ts) {
        if (offset >= min_offset && ts >= target) {
            found = timestamp_offset{ts, offset, epoch_of(h)};
            return false;
        }
        return true;
    });
    if (!decoded) return std::optional(approx);
    return found;
}

log_result<timestamp_offset> offset_of_max_timestamp(const io::file& f, const batch_location& b,
                                                     const record_timestamp_reader& reader) {
    const auto& h = b.header;
    timestamp_offset approx{h.max_timestamp, h.base_offset, epoch_of(h)};
    if (h.ts_type() == record::timestamp_type::log_append_time) return approx;
    auto bytes = read_batch(f, b);
    if (!bytes) return failure{bytes.error()};
    std::optional<timestamp_offset> found;
    const auto& decode = reader ? reader : decode_record_timestamps;
    bool decoded = decode(*bytes, [&](int64_t offset, int64_t ts) {
        if (ts == h.max_timestamp) {
            found = timestamp_offset{ts, offset, epoch_of(h)};
            return false;
        }
        return true;
    });
    if (!decoded || !found) return approx;
    return *found;
}

}  // namespace ketch::log
