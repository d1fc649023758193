#include "record/batch_header.h"

#include "base/crc32c.h"
#include "base/endian.h"

namespace ketch::record {

std::optional<batch_header> parse_batch_header(byte_view b) {
    if (b.size() < k_batch_header_size) return std::nullopt;
    const uint8_t* p = b.data();
    batch_header h;
    h.base_offset = load_be<int64_t>(p + 0);
    h.batch_length = load_be<int32_t>(p + 8);
    h.partition_leader_epoch = load_be<int32_t>(p + 12);
    h.magic = int8_t(p[16]);
    h.crc = load_be<uint32_t>(p + 17);
    h.attributes = load_be<int16_t>(p + 21);
    h.last_offset_delta = load_be<int32_t>(p + 23);
    h.base_timestamp = load_be<int64_t>(p + 27);
    h.max_timestamp = load_be<int64_t>(p + 35);
    h.producer_id = load_be<int64_t>(p + 43);
    h.producer_epoch = load_be<int16_t>(p + 51);
    h.base_sequence = load_be<int32_t>(p + 53);
    h.records_count = load_be<int32_t>(p + 57);
    return h;
}

void set_base_offset(uint8_t* batch, int64_t base_offset) { store_be<int64_t>(batch, base_offset); }
void set_partition_leader_epoch(uint8_t* batch, int32_t epoch) { store_be<int32_t>(batch + 12, epoch); }

void write_batch_header(const batch_header& h, uint8_t* p) {
    store_be<int64_t>(p + 0, h.base_offset);
    store_be<int32_t>(p + 8, h.batch_length);
    store_be<int32_t>(p + 12, h.partition_leader_epoch);
    p[16] = uint8_t(h.magic);
    store_be<uint32_t>(p + 17, h.crc);
    store_be<int16_t>(p + 21, h.attributes);
    store_be<int32_t>(p + 23, h.last_offset_delta);
    store_be<int64_t>(p + 27, h.base_timestamp);
    store_be<int64_t>(p + 35, h.max_timestamp);
    store_be<int64_t>(p + 43, h.producer_id);
    store_be<int16_t>(p + 51, h.producer_epoch);
    store_be<int32_t>(p + 53, h.base_sequence);
    store_be<int32_t>(p + 57, h.records_count);
}

uint32_t compute_batch_crc(byte_view batch) { return crc32c(batch.subspan(k_attributes_offset)); }

bool batch_crc_matches(byte_view batch) {
    return batch.size() >= k_batch_header_size &&
           load_be<uint32_t>(batch.data() + k_crc_offset) == compute_batch_crc(batch);
}

void recompute_crc(uint8_t* batch, size_t len) {
    store_be<uint32_t>(batch + k_crc_offset, compute_batch_crc({batch, len}));
}

void set_max_timestamp(uint8_t* batch, size_t len, timestamp_type type, int64_t max_timestamp) {
    int16_t attrs = load_be<int16_t>(batch + k_attributes_offset);
    // Kafka rebuilds the attributes from their known fields (computeAttributes),
    // which clears any unknown bits 7-15 whenever it writes.
    constexpr int16_t known = k_attr_codec_mask | k_attr_transactional | k_attr_control | k_attr_delete_horizon;
    int16_t want = int16_t((attrs & known) | (type == timestamp_type::log_append_time ? k_attr_log_append_time : 0));
    bool same_type = ((attrs & k_attr_log_append_time) != 0) == (type == timestamp_type::log_append_time);
    if (same_type && load_be<int64_t>(batch + k_max_timestamp_offset) == max_timestamp) return;
    store_be<int16_t>(batch + k_attributes_offset, want);
    store_be<int64_t>(batch + k_max_timestamp_offset, max_timestamp);
    recompute_crc(batch, len);
}

void set_log_append_time(uint8_t* batch, size_t len, int64_t now) {
    set_max_timestamp(batch, len, timestamp_type::log_append_time, now);
}

}  // namespace ketch::record
