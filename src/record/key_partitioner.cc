#include "record/key_partitioner.h"

namespace ketch::record {

int32_t murmur2(byte_view data) {
    const uint32_t m = 0x5bd1e995;
    const int r = 24;
    const uint32_t length = uint32_t(data.size());
    uint32_t h = 0x9747b28c ^ length;
    const uint32_t length4 = length / 4;
    for (uint32_t i = 0; i < length4; ++i) {
        uint32_t i4 = i * 4;
        uint32_t k = uint32_t(data[i4]) | uint32_t(data[i4 + 1]) << 8 | uint32_t(data[i4 + 2]) << 16 |
                     uint32_t(data[i4 + 3]) << 24;
        k *= m;
        k ^= k >> r;
        k *= m;
        h *= m;
        h ^= k;
    }
    const uint32_t tail = length & ~3u;
    switch (length % 4) {
        case 3: h ^= uint32_t(data[tail + 2]) << 16; [[fallthrough]];
        case 2: h ^= uint32_t(data[tail + 1]) << 8; [[fallthrough]];
        case 1: h ^= uint32_t(data[tail]); h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return int32_t(h);
}

int32_t partition_for_key(byte_view key, int32_t partitions) {
    return int32_t(uint32_t(murmur2(key)) & 0x7fffffffu) % partitions;
}

}  // namespace ketch::record
