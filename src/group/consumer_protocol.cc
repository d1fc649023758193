// The embedded consumer protocol through the generated types
// (protocol/messages/consumer_protocol_{subscription,assignment}.h, made by
// tools/kgen from Kafka's ConsumerProtocol*.json): this file only maps
// Kafka's ConsumerProtocol rules onto them — the version prefix, a version
// above 3 read as 3, a negative one or any decode error malformed.
#include "group/consumer_protocol.h"

#include <algorithm>

#include "protocol/messages/consumer_protocol_assignment.h"
#include "protocol/messages/consumer_protocol_subscription.h"

namespace ketch::group {

namespace {

using kafka::consumer_protocol_assignment;
using kafka::consumer_protocol_subscription;

// ConsumerProtocol.deserializeVersion and the body read at min(version,
// highest): nullopt (Kafka: SchemaException) for a negative version or bytes
// the schema does not describe. `trailing`, when given, tells whether bytes
// are left after the last field.
template <typename Message>
std::optional<Message> decode(byte_view m, int16_t* version, bool* trailing = nullptr,
                              std::optional<int16_t> read_as = std::nullopt) {
    try {
        kafka::reader r(m.data(), m.size());
        const int16_t v = r.i16();
        if (v < 0) return std::nullopt;
        if (version) *version = v;
        Message msg;
        msg.decode(r, read_as.value_or(std::min(v, Message::max_version)));
        if (trailing) *trailing = r.remaining() != 0;
        return msg;
    } catch (const kafka::decode_error&) {
        return std::nullopt;
    }
}

template <typename TopicPartitions>
partition_list to_list(const TopicPartitions& tps) {
    partition_list out;
    out.reserve(tps.size());
    for (const auto& tp : tps) out.emplace_back(tp.topic, tp.partitions);
    return out;
}

named_partitions fold(const partition_list& list) {
    named_partitions out;
    for (const auto& [topic, ps] : list) out[topic].insert(ps.begin(), ps.end());
    return out;
}

}  // namespace

std::optional<int16_t> protocol_version(byte_view m) {
    try {
        kafka::reader r(m.data(), m.size());
        const int16_t v = r.i16();
        if (v < 0) return std::nullopt;
        return v;
    } catch (const kafka::decode_error&) {
        return std::nullopt;
    }
}

std::optional<subscription_fields> read_subscription(byte_view m) {
    subscription_fields s;
    auto msg = decode<consumer_protocol_subscription>(m, &s.version, &s.trailing_bytes);
    if (!msg) return std::nullopt;
    s.topics = std::move(msg->topics);
    s.null_user_data = !msg->user_data;
    s.owned = to_list(msg->owned_partitions);
    s.generation_id = msg->generation_id;
    s.rack_id = std::move(msg->rack_id);
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
    int16_t version = 0;
    auto msg = decode<consumer_protocol_subscription>(m, &version, nullptr, int16_t(0));
    if (!msg) return std::nullopt;
    return std::set<std::string>(msg->topics.begin(), msg->topics.end());
}

std::optional<assignment_fields> read_assignment(byte_view m) {
    assignment_fields a;
    auto msg = decode<consumer_protocol_assignment>(m, &a.version, &a.trailing_bytes);
    if (!msg) return std::nullopt;
    a.partitions = to_list(msg->assigned_partitions);
    a.null_user_data = !msg->user_data;
    a.user_data = msg->user_data && !msg->user_data->empty();
    return a;
}

std::optional<named_partitions> parse_assignment(byte_view m, bool* user_data) {
    auto a = read_assignment(m);
    if (user_data) *user_data = a && a->user_data;
    if (!a) return std::nullopt;
    return fold(a->partitions);
}

bytes encode_assignment(const named_partitions& partitions, int16_t version) {
    const int16_t v = std::min(version, consumer_protocol_assignment::max_version);
    consumer_protocol_assignment a;  // user_data: null
    a.assigned_partitions.reserve(partitions.size());
    for (const auto& [topic, ps] : partitions) a.assigned_partitions.push_back({topic, {ps.begin(), ps.end()}, {}});
    kafka::writer w;
    w.i16(v);
    a.encode(w, v);
    return std::move(w.buffer());
}

}  // namespace ketch::group
