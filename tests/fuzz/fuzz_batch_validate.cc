// libFuzzer target: record::validate_produce_batch, the check every Produce
// partition's `records` field goes through (framing, CRC, the four codecs,
// record decoding, timestamps).
//
// Input layout: one control byte, then the records field. Control bits:
//   0  set the first batch's batch_length to cover the rest of the input
//   1  recompute the first batch's CRC-32C (else the fuzzer rarely gets past it)
//   2  compacted topic            3  zstd not allowed (Produce v3-v6)
//   4  topic uses LogAppendTime   5  small inflation limit (4 KiB, else 1 MiB)
//   6  tight timestamp bounds (1 h either side of a fixed clock)
//
// Contract checked (violations abort): no crash, no UB, no read outside the
// input; an accepted batch is consistent with its own header and the limits;
// a refused one carries an error code.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "base/bytes.h"
#include "base/crc32c.h"
#include "base/endian.h"
#include "record/batch_header.h"
#include "record/batch_validate.h"

namespace {

using namespace ketch;
using namespace ketch::record;

constexpr int64_t k_now_ms = 1'700'000'000'000;

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_batch_validate: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const uint8_t control = data[0];
    bytes in(data + 1, data + size);

    if ((control & 0x01) && in.size() >= k_log_overhead)
        store_be<int32_t>(in.data() + 8, int32_t(in.size() - k_log_overhead));
    if ((control & 0x02) && in.size() >= k_batch_header_size) {
        const int32_t len = load_be<int32_t>(in.data() + 8);
        const size_t end = len > 0 ? std::min(in.size(), k_log_overhead + size_t(len)) : in.size();
        if (end > k_attributes_offset) {
            uint32_t crc = crc32c(byte_view(in).subspan(k_attributes_offset, end - k_attributes_offset));
            store_be<uint32_t>(in.data() + k_crc_offset, crc);
        }
    }

    validation_limits limits;
    limits.now_ms = k_now_ms;
    limits.compacted = control & 0x04;
    limits.allow_zstd = !(control & 0x08);
    limits.topic_timestamp_type = (control & 0x10) ? timestamp_type::log_append_time : timestamp_type::create_time;
    limits.max_inflated_bytes = (control & 0x20) ? 4096 : (size_t(1) << 20);
    if (control & 0x40) {
        limits.timestamp_before_max_ms = 3'600'000;
        limits.timestamp_after_max_ms = 3'600'000;
    }
    limits.topic_partition = "fuzz-0";

    auto r = validate_produce_batch(in, limits);
    if (!r.ok()) {
        check(r.error().code != error_code::none, "refused batch without an error code");
        return 0;
    }
    const batch_info& b = r.value();
    check(b.size_in_bytes >= k_batch_header_size && b.size_in_bytes <= in.size(), "batch size outside the input");
    check(b.size_in_bytes == k_log_overhead + size_t(b.header.batch_length), "batch size disagrees with batch_length");
    check(b.header.base_offset == 0, "accepted a batch whose base offset is not 0");
    check(b.record_count > 0 && b.record_count == b.header.last_offset_delta + 1, "record count disagrees with header");
    check(b.inflated_size <= std::max(limits.max_inflated_bytes, b.size_in_bytes), "inflated past the limit");
    check(int32_t(b.size_in_bytes) <= limits.max_message_bytes, "accepted a batch over max.message.bytes");
    if (b.offset_deltas_consecutive)  // otherwise it is whatever delta the record carried
        check(b.max_timestamp_offset_delta >= -1 && b.max_timestamp_offset_delta < b.record_count,
              "max timestamp offset delta outside the batch");
    if (!limits.allow_zstd) check(b.codec != compression::zstd, "accepted zstd where it is not allowed");
    check(!b.control, "accepted a control batch from a producer");
    return 0;
}
