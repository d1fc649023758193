#include "group/consumer_protocol.h"

#include <algorithm>

#include "base/endian.h"

namespace ketch::group {

namespace {

constexpr int16_t highest_version = 3;

// A bounds-checked big-endian reader over the payload.
struct reader {
    byte_view m;
    size_t pos = 0;
    bool ok = true;

    bool need(size_t n) {
        if (!ok || m.size() - pos < n) ok = false;
        return ok;
    }
    int16_t i16() {
        if (!need(2)) return 0;
        auto v = int16_t(load_be<uint16_t>(m.data() + pos));
        pos += 2;
        return v;
    }
    int32_t i32() {
        if (!need(4)) return 0;
        auto v = int32_t(load_be<uint32_t>(m.data() + pos));
        pos += 4;
        return v;
    }
    std::optional<std::string> nullable_string() {
        int16_t len = i16();
        if (!ok || len == -1) return std::nullopt;
        if (len < 0 || !need(size_t(len))) {
            ok = false;
            return std::nullopt;
        }
        std::string s(reinterpret_cast<const char*>(m.data() + pos), size_t(len));
        pos += size_t(len);
        return s;
    }
    std::string string() {
        auto s = nullable_string();
        if (!s) ok = false;
        return s.value_or("");
    }
    // Skips nullable bytes; returns their length (-1: null).
    int32_t skip_nullable_bytes() {
        int32_t len = i32();
        if (!ok || len == -1) return len;
        if (len < 0 || !need(size_t(len))) ok = false;
        else pos += size_t(len);
        return len;
    }
    int32_t array_len() {  // arrays are not nullable in these payloads
        int32_t n = i32();
        if (n < 0) ok = false;
        return ok ? n : 0;
    }
    partition_list topic_partitions() {
        partition_list out;
        int32_t n = array_len();
        for (int32_t i = 0; ok && i < n; ++i) {
            auto& [topic, ps] = out.emplace_back(string(), std::vector<int32_t>{});
            int32_t np = array_len();
            for (int32_t j = 0; ok && j < np; ++j) ps.push_back(i32());
        }
        return out;
    }
    bool trailing() const { return pos != m.size(); }
};

named_partitions fold(const partition_list& list) {
    named_partitions out;
    for (const auto& [topic, ps] : list) out[topic].insert(ps.begin(), ps.end());
    return out;
}

void put16(bytes& b, int16_t v) {
    b.push_back(uint8_t(uint16_t(v) >> 8));
    b.push_back(uint8_t(uint16_t(v) & 0xff));
}
void put32(bytes& b, int32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t((uint32_t(v) >> s) & 0xff));
}

}  // namespace

std::optional<int16_t> protocol_version(byte_view m) {
    reader r{m};
    int16_t v = r.i16();
    if (!r.ok || v < 0) return std::nullopt;
    return v;
}

std::optional<subscription_fields> read_subscription(byte_view m) {
    reader r{m};
    subscription_fields s;
    s.version = r.i16();
    if (!r.ok || s.version < 0) return std::nullopt;
    const int16_t v = std::min(s.version, highest_version);
    int32_t n = r.array_len();
    for (int32_t i = 0; r.ok && i < n; ++i) s.topics.push_back(r.string());
    s.null_user_data = r.skip_nullable_bytes() == -1;
    if (v >= 1) s.owned = r.topic_partitions();
    if (v >= 2) s.generation_id = r.i32();
    if (v >= 3) s.rack_id = r.nullable_string();
    if (!r.ok) return std::nullopt;
    s.trailing_bytes = r.trailing();
    return s;
}

std::optional<consumer_subscription> parse_subscription(byte_view m) {
    auto f = read_subscription(m);
    if (!f) return std::nullopt;
    return consumer_subscription{f->version, std::move(f->topics), fold(f->owned), f->generation_id,
                                 std::move(f->rack_id)};
}

std::optional<std::set<std::string>> subscription_topics(byte_view m) {
    // Kafka's computeSubscribedTopics reads the version-0 prefix only.
    reader r{m};
    if (r.i16() < 0 || !r.ok) return std::nullopt;
    std::set<std::string> topics;
    int32_t n = r.array_len();
    for (int32_t i = 0; r.ok && i < n; ++i) topics.insert(r.string());
    r.skip_nullable_bytes();
    if (!r.ok) return std::nullopt;
    return topics;
}

std::optional<assignment_fields> read_assignment(byte_view m) {
    reader r{m};
    assignment_fields a;
    a.version = r.i16();
    if (!r.ok || a.version < 0) return std::nullopt;
    a.partitions = r.topic_partitions();
    const int32_t user_data = r.skip_nullable_bytes();
    if (!r.ok) return std::nullopt;
    a.null_user_data = user_data == -1;
    a.user_data = user_data > 0;
    a.trailing_bytes = r.trailing();
    return a;
}

std::optional<named_partitions> parse_assignment(byte_view m, bool* user_data) {
    auto a = read_assignment(m);
    if (user_data) *user_data = a && a->user_data;
    if (!a) return std::nullopt;
    return fold(a->partitions);
}

bytes encode_assignment(const named_partitions& partitions, int16_t version) {
    bytes b;
    put16(b, std::min(version, highest_version));
    put32(b, int32_t(partitions.size()));
    for (const auto& [topic, ps] : partitions) {
        put16(b, int16_t(topic.size()));
        for (char c : topic) b.push_back(uint8_t(c));
        put32(b, int32_t(ps.size()));
        for (int32_t p : ps) put32(b, p);
    }
    put32(b, -1);  // user_data: null
    return b;
}

}  // namespace ketch::group
