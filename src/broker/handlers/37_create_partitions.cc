// CreatePartitions v0-3. v1: throttle. v2: flexible. v3: no change (KIP-599).
// Behaviour: ControllerApis.createPartitions (duplicate names),
// ReplicationControlManager.createPartitions (count must grow, manual
// assignments: one per new partition, registered brokers only). The new
// partitions' logs are created on first use, like a new topic's.
// controller_mutation_rate (KIP-599): the added partitions are charged after
// the count checks, before the assignments' brokers are checked; strict from
// v3 (THROTTLING_QUOTA_EXCEEDED, no message), permissive before
// (recorded: conformance/recordings/controller-mutation-quota.json).
#include <map>
#include <set>

#include "broker/blocking.h"
#include "broker/handlers/error_rows.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "broker/quota_accounting.h"
#include "broker/topic_read_through.h"
#include "broker/topics.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using topic_req = create_partitions_request::create_partitions_topic;

// Manual assignments: one per added partition (checked first, before the
// quota), each naming only this broker, no broker twice. Empty string when
// they are acceptable.
std::string check_assignment_count(const topic_req& t, const meta::topic& current) {
    if (!t.assignments) return {};
    const int32_t added = t.count - current.partition_count;
    if (int32_t(t.assignments->size()) != added)
        return "Attempted to add " + std::to_string(added) + " additional partition(s), but only " +
               std::to_string(t.assignments->size()) + " assignment(s) were specified.";
    return {};
}

std::string check_assignments(const topic_req& t, const std::set<int32_t>& registered) {
    if (!t.assignments) return {};
    for (auto& a : *t.assignments) {
        if (a.broker_ids.empty()) return "The manual partition assignment includes an empty replica list.";
        std::set<int32_t> ids(a.broker_ids.begin(), a.broker_ids.end());
        if (ids.size() != a.broker_ids.size()) return "The manual partition assignment includes the same broker twice.";
        for (auto id : a.broker_ids)
            if (!registered.contains(id))
                return "The manual partition assignment includes broker " + std::to_string(id) +
                       ", but no such broker is registered.";
    }
    return {};
}

// Every topic of the request checked, and its partitions added unless refused.
create_partitions_response add_each(request_context& ctx, const create_partitions_request& req) {
    auto& b = ctx.broker;
    create_partitions_response resp;
    std::map<std::string, int> seen;
    for (auto& t : req.topics) ++seen[t.name];
    std::set<std::string> answered;
    auto quota = mutation_quota_for(ctx, 3);
    for (auto& t : req.topics) {
        if (!answered.insert(t.name).second) continue;  // Kafka answers each name once
        auto& out = resp.results.emplace_back();
        out.name = t.name;
        out.error_message = std::nullopt;
        auto fail = [&](error_code e, std::string msg) {
            out.error_code = code(e);
            out.error_message = std::move(msg);
        };
        if (seen[t.name] > 1) {  // not through fail(): g++ 12's false -Warray-bounds on the literal
            out.error_code = code(error_code::invalid_request);
            out.error_message = "Duplicate topic name.";
            continue;
        }
        // ControllerApis.createPartitions: ALTER on the cluster or the topic.
        if (!ctx.authorize_cluster(security::acl_operation::alter) &&
            !ctx.authorize(security::acl_operation::alter, security::resource_type::topic, t.name)) {
            out.error_code = code(error_code::topic_authorization_failed);  // no message (recorded)
            continue;
        }
        auto current = b.topics.by_name(t.name);
        if (!current) {
            out.error_code = code(error_code::unknown_topic_or_partition);  // no message (recorded)
            continue;
        }
        if (t.count > current->partition_count) {
            if (auto bad = check_assignment_count(t, *current); !bad.empty()) {
                fail(error_code::invalid_replica_assignment, bad);
                continue;
            }
            if (!charge_mutation(quota, t.count - current->partition_count)) {
                out.error_code = code(error_code::throttling_quota_exceeded);  // no message (recorded)
                continue;
            }
            if (auto bad = check_assignments(t, registered_brokers(ctx)); !bad.empty()) {
                fail(error_code::invalid_replica_assignment, bad);
                continue;
            }
        }
        auto r = b.topics.set_partition_count(t.name, t.count, req.validate_only);
        if (!r.ok()) {
            fail(to_kafka(r.error().code), r.error().message);
            continue;
        }
    }
    finish_mutations(ctx, quota);
    return resp;
}

}  // namespace

awaitable<create_partitions_response> handle_create_partitions(request_context& ctx, create_partitions_request& req) {
    co_await read_through_topics(ctx, req.topics, [](auto& t) { return std::string_view(t.name); });
    // The new counts are written (cluster mode: in PostgreSQL): store_answer.
    co_return co_await store_answer<create_partitions_response>(ctx.broker,
                                                                [&ctx, &req] { return add_each(ctx, req); });
}

// CreatePartitionsRequest.getErrorResponse: each topic with the error and the
// exception's message.
std::optional<create_partitions_response> create_partitions_error(const create_partitions_request& req, int16_t,
                                                                  const error_answer& e) {
    create_partitions_response resp;
    topic_error_rows(resp.results, req.topics, e);
    return resp;
}

}  // namespace ketch::broker
