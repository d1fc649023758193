// Produce under an error fault that names a topic (--faults,
// docs/design/faults.md): only the matched partitions are answered the
// error; the request's other partitions are handled as usual.
#pragma once

#include "fault/rule.h"
#include "meta/topic_registry.h"
#include "protocol/messages/produce.h"

namespace ketch::broker {

// Moves the partitions `m` matches out of `req` into the returned request
// (same acks, timeout, transactional id); topics left without partitions are
// dropped from `req`.
kafka::produce_request take_matched(kafka::produce_request& req, const fault::match& m,
                                    const meta::topic_registry& topics);

// Appends the topic rows of `failed` to `into` (under the same topic when it
// is there).
void merge_rows(kafka::produce_response& into, kafka::produce_response&& failed);

}  // namespace ketch::broker
