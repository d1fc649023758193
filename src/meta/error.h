// Errors of the meta module. Each code names the Kafka error a handler should
// send (one mapping per handler, ARCHITECTURE.md decision 6); `message` is the
// text Kafka 4.3.1 puts in the response's error_message for the same case.
#pragma once

#include <string>

namespace ketch::meta {

enum class errc {
    invalid_topic,               // INVALID_TOPIC_EXCEPTION (17): bad name or '.'/'_' collision
    topic_already_exists,        // TOPIC_ALREADY_EXISTS (36)
    unknown_topic_or_partition,  // UNKNOWN_TOPIC_OR_PARTITION (3): no topic by that name
    unknown_topic_id,            // UNKNOWN_TOPIC_ID (100): no topic with that id
    invalid_config,              // INVALID_CONFIG (40): unknown key, bad value, conflicting values
    invalid_partitions,          // INVALID_PARTITIONS (37)
    invalid_replication_factor,  // INVALID_REPLICATION_FACTOR (38)
    invalid_request,             // INVALID_REQUEST (42): e.g. one name twice in a batch
    storage_error,               // the metadata store failed; nothing was changed
};

struct error {
    errc code;
    std::string message;
};

}  // namespace ketch::meta
