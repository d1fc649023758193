#include "group/java_hash.h"

#include <algorithm>
#include <numeric>

#include "base/utf8.h"

namespace ketch::group {

int32_t java_string_hash(std::string_view s) {
    uint32_t h = 0;
    for (size_t i = 0; i < s.size();) {
        uint32_t cp = next_code_point(s, i);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (0xd800 + (cp >> 10));
            h = 31 * h + (0xdc00 + (cp & 0x3ff));
        } else {
            h = 31 * h + cp;
        }
    }
    return int32_t(h);
}

std::vector<size_t> java_hash_map_order(const std::vector<std::string>& keys) {
    // HashMap starts with 16 buckets and doubles when size exceeds 3/4 of them;
    // it iterates bucket by bucket, a bucket's entries in insertion order.
    uint32_t capacity = 16;
    while (keys.size() > capacity * 3 / 4) capacity *= 2;
    std::vector<uint32_t> bucket(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
        auto h = uint32_t(java_string_hash(keys[i]));
        bucket[i] = (h ^ (h >> 16)) & (capacity - 1);
    }
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bucket[a] < bucket[b]; });
    return order;
}

}  // namespace ketch::group
