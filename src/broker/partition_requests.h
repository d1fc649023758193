// The step every partition API repeats for each topic of its request: find
// the topic, authorize the operation on it, and know the error each of its
// partitions gets; then open a partition through the partition service.
//
//   for_each_partition(ctx, acl_operation::read, req.topics, resp.topics,
//                      [&](auto& out, auto& rt, auto& p, const topic_access& acc) {
//       auto part = open_partition(ctx, acc, p.partition_index);
//       if (!part.ok()) { out.error_code = code(part.error()); return; }
//       ... ctx.broker.partitions.read(*part, ...) ...
//   });
#pragma once

#include <memory>
#include <string>

#include "base/error_code.h"
#include "base/result.h"
#include "base/uuid.h"
#include "broker/request_context.h"
#include "meta/topic_registry.h"
#include "partition/service.h"

namespace ketch::broker {

struct topic_access {
    std::shared_ptr<const meta::resolved_topic> topic;  // null when unknown or denied by name
    // What every partition of the topic is answered when not none:
    // TOPIC_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID.
    error_code error = error_code::none;
    bool denied() const { return error == error_code::topic_authorization_failed; }
};

// By name: `op` on the topic is checked before its existence, so a caller
// without the right cannot learn whether a topic exists (KafkaApis does so
// for every partition API).
topic_access access_topic(request_context& ctx, security::acl_operation op, const std::string& name);
// By id (Produce and Fetch v13+): an unknown id is UNKNOWN_TOPIC_ID, before
// authorization (there is no name to authorize).
topic_access access_topic(request_context& ctx, security::acl_operation op, const uuid& id);
// The access of a follower's fetch: CLUSTER_ACTION on the cluster, decided
// once per request (`denied`), not per topic.
topic_access access_topic_as_follower(request_context& ctx, bool denied, const std::string& name, const uuid& id,
                                      bool by_id);

// The topic's error if it has one, else the partition opened for a read by
// the partition service (a partition never written reads as an empty log,
// nothing created): UNKNOWN_TOPIC_OR_PARTITION outside the topic,
// KAFKA_STORAGE_ERROR when it cannot be opened.
inline result<partition::partition_handle, error_code> open_partition(request_context& ctx, const topic_access& a,
                                                                      int32_t index) {
    if (a.error != error_code::none) return failure{a.error};
    return ctx.broker.partitions.open_for_read(*a.topic, index);
}

// As open_partition, for a request that changes the partition (DeleteRecords):
// its storage is created on first use.
inline result<partition::partition_handle, error_code> open_partition_to_write(request_context& ctx,
                                                                               const topic_access& a, int32_t index) {
    if (a.error != error_code::none) return failure{a.error};
    return ctx.broker.partitions.open(*a.topic, index);
}

// The loop of a partition API by topic name: for each topic of the request a
// row in `rows` named for it, the access `op` gives to it, and for each of its
// partitions (request rows, or bare indexes) a row with its index, which
// answer(out, topic, partition, access) fills.
template <class Topics, class Rows, class Answer>
void for_each_partition(request_context& ctx, security::acl_operation op, const Topics& topics, Rows& rows,
                        Answer&& answer) {
    for (auto& rt : topics) {
        auto& tr = rows.emplace_back();
        tr.name = rt.name;
        const topic_access acc = access_topic(ctx, op, rt.name);
        auto one = [&](const auto& p, int32_t index) {
            auto& out = tr.partitions.emplace_back();
            out.partition_index = index;
            answer(out, rt, p, acc);
        };
        if constexpr (requires { rt.partition_indexes; })
            for (int32_t index : rt.partition_indexes) one(index, index);
        else
            for (auto& p : rt.partitions) one(p, p.partition_index);
    }
}

}  // namespace ketch::broker
