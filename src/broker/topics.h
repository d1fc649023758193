// Topic lifecycle as the broker sees it: the registry (meta) plus the
// partition logs (log). Handlers for CreateTopics, DeleteTopics, Metadata
// (auto-creation) and Produce go through here so both stay in step.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "base/result.h"
#include "broker/broker_context.h"
#include "meta/error.h"
#include "meta/topic.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

error_code to_kafka(meta::errc e);

std::vector<result<meta::topic, meta::error>> create_topics(broker_context& b,
                                                            std::span<const meta::create_topic_args> args,
                                                            bool validate_only);

// Creates `name` with the broker's defaults, as auto.create.topics.enable does.
result<meta::topic, meta::error> auto_create_topic(broker_context& b, const std::string& name);

// Creates __consumer_offsets with Kafka's settings (offsets_topic.h), filled
// from the offset store; TOPIC_ALREADY_EXISTS if it exists.
result<meta::topic, meta::error> create_offsets_topic(broker_context& b);

// Removes the topic from the registry, then its partitions' logs.
result<meta::topic, meta::error> delete_topic(broker_context& b, const meta::topic& t);

// Puts the topic's current effective settings into every open partition log
// of `t` (segment size and roll time, index interval, flush interval), so an
// altered config acts at once. Produce and retention read the registry on
// every call and need nothing more.
void apply_topic_settings(broker_context& b, const meta::topic& t);

}  // namespace ketch::broker
