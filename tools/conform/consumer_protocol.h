// The consumer protocol embedded in classic group requests, readable in
// scenarios and recordings.
//
// Requests: wherever a scenario's request JSON holds one of these objects it
// is replaced by the base64 bytes of a ConsumerProtocolSubscription or
// ConsumerProtocolAssignment (the clients' wire form, not a Kafka request):
//   {"$consumer_subscription": {"version": 0-3, "topics": [name, ...],
//                               "owned": [{"topic": name, "partitions": [..]}]}}
//   {"$consumer_assignment": {"version": 0-3,
//                             "partitions": [{"topic": name, "partitions": [..]}]}}
// so topic names can be placeholders (the bindings substitute them first).
//
// Responses of a step with the rule "consumer_protocol": every string field
// called "assignment", "member_assignment", "metadata" or "member_metadata"
// that decodes as such a payload (exactly, to its last byte) is replaced by
// the object above, so recordings show topic names (and their placeholders).
#pragma once

#include "codec.h"

namespace ketch::conform {

json expand_consumer_protocol(const json& request);
json decode_consumer_protocol_fields(const json& response);

}  // namespace ketch::conform
