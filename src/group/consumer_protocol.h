// The one piece of the embedded consumer protocol the coordinator reads: the
// topics of a member's subscription (ConsumerProtocolSubscription), used to
// tell whether a group is subscribed to a topic (OffsetDelete, expiry).
//
// Like Kafka (ClassicGroup.computeSubscribedTopics) it reads the version-0
// prefix shared by every version: int16 version, [string] topics, nullable
// bytes user_data; later fields are ignored. This is a read of a client-side
// payload, not of a Kafka request, so the generated codec is not used (the
// group layer may not include it).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "base/bytes.h"

namespace ketch::group {

inline constexpr const char* consumer_protocol_type = "consumer";

// The subscribed topics; nullopt if the bytes are not a valid subscription.
std::optional<std::set<std::string>> subscription_topics(byte_view metadata);

}  // namespace ketch::group
