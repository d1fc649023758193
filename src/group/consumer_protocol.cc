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
    void skip_nullable_bytes() {
        int32_t len = i32();
        if (!ok || len == -1) return;
        if (len < 0 || !need(size_t(len))) ok = false;
        else pos += size_t(len);
    }
    int32_t array_len() {  // arrays are not nullable in these payloads
        int32_t n = i32();
        if (n < 0) ok = false;
        return ok ? n : 0;
    }
    named_partitions topic_partitions() {
        named_partitions out;
        int32_t n = array_len();
        for (int32_t i = 0; ok && i < n; ++i) {
            std::string topic = string();
            int32_t np = array_len();
            auto& ps = out[topic];
            for (int32_t j = 0; ok && j < np; ++j) ps.insert(i32());
        }
        return out;
    }
};

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

std::optional<consumer_subscription> parse_subscription(byte_view m) {
    reader r{m};
    consumer_subscription s;
    s.version = r.i16();
    if (!r.ok || s.version < 0) return std::nullopt;
    const int16_t v = std::min(s.version, highest_version);
    int32_t n = r.array_len();
    for (int32_t i = 0; r.ok && i < n; ++i) s.topics.push_back(r.string());
    r.skip_nullable_bytes();
    if (v >= 1) s.owned = r.topic_partitions();
    if (v >= 2) s.generation_id = r.i32();
    if (v >= 3) s.rack_id = r.nullable_string();
    if (!r.ok) return std::nullopt;
    return s;
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

std::optional<named_partitions> parse_assignment(byte_view m, bool* user_data) {
    reader r{m};
    if (r.i16() < 0 || !r.ok) return std::nullopt;
    auto out = r.topic_partitions();
    const size_t before = r.pos;
    r.skip_nullable_bytes();
    if (user_data) *user_data = r.ok && r.pos - before > 4;
    if (!r.ok) return std::nullopt;
    return out;
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
