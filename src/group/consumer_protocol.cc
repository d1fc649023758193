#include "group/consumer_protocol.h"

#include "base/endian.h"

namespace ketch::group {

std::optional<std::set<std::string>> subscription_topics(byte_view m) {
    size_t pos = 0;
    auto need = [&](size_t n) { return m.size() - pos >= n; };
    if (!need(2)) return std::nullopt;
    auto version = int16_t(load_be<uint16_t>(m.data() + pos));
    pos += 2;
    if (version < 0) return std::nullopt;  // Kafka: "Unsupported subscription version"
    if (!need(4)) return std::nullopt;
    auto count = int32_t(load_be<uint32_t>(m.data() + pos));
    pos += 4;
    if (count < 0) return std::nullopt;  // topics is not nullable
    std::set<std::string> topics;
    for (int32_t i = 0; i < count; ++i) {
        if (!need(2)) return std::nullopt;
        auto len = int16_t(load_be<uint16_t>(m.data() + pos));
        pos += 2;
        if (len < 0 || !need(size_t(len))) return std::nullopt;
        topics.emplace(reinterpret_cast<const char*>(m.data() + pos), size_t(len));
        pos += size_t(len);
    }
    if (!need(4)) return std::nullopt;
    auto user_len = int32_t(load_be<uint32_t>(m.data() + pos));
    pos += 4;
    if (user_len < -1 || (user_len > 0 && !need(size_t(user_len)))) return std::nullopt;
    return topics;
}

}  // namespace ketch::group
