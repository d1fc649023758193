// Fetch's reads (handlers/01_fetch.cc): the partitions a fetch context names
// read through the partition service, and the long poll. Behaviour: Apache
// Kafka 4.3.1 KafkaApis.handleFetchRequest (which partitions are "erroneous",
// answered without a read) and ReplicaManager.fetchMessages (when a fetch
// answers at once, when it waits in the purgatory).
#pragma once

#include <vector>

#include "broker/async.h"
#include "broker/partition_requests.h"
#include "fetch/session.h"
#include "protocol/messages/fetch.h"

namespace ketch::broker {

// One partition of a fetch, in the order the context gives them.
struct fetch_item {
    fetch::partition_key key;
    fetch::partition_params params;
    const topic_access* topic = nullptr;
    kafka::fetch_response::partition_data out;
    // The topic is unknown (name or id), not authorized, or has no such
    // partition: answered without a read, after the others, and no reason to
    // stop waiting (KafkaApis' `erroneous`).
    bool erroneous = false;
};

struct fetch_limits {
    int32_t max_wait_ms = 0;
    int32_t min_bytes = 0;
    int32_t max_bytes = 0;
    bool read_committed = false;
};

// Reads every item, and while fewer than min_bytes are there, parks on the
// items' partitions until an append to one of them or max_wait_ms
// (ReplicaManager.fetchMessages: at once when max_wait_ms <= 0, nothing can
// be read, enough bytes are there or a read failed).
awaitable<void> read_or_wait(request_context& ctx, std::vector<fetch_item>& items, const fetch_limits& lim);

}  // namespace ketch::broker
