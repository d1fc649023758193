#include "group/java_hash.h"

#include <algorithm>
#include <numeric>

namespace ketch::group {

namespace {

// Decodes one code point at s[i], advancing i; U+FFFD for a malformed byte.
uint32_t next_code_point(std::string_view s, size_t& i) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
        ++i;
        return len == 1 ? c : 0xfffd;
    }
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t j = 1; j < len; ++j) {
        auto cc = static_cast<unsigned char>(s[i + j]);
        if ((cc & 0xc0) != 0x80) {
            ++i;
            return 0xfffd;
        }
        cp = (cp << 6) | (cc & 0x3f);
    }
    i += len;
    return cp;
}

}  // namespace

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
