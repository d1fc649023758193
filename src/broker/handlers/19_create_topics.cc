// CreateTopics v2-7. v1: validate_only, error_message. v2: throttle.
// v4: -1 partitions / replication factor take the broker defaults (KIP-464).
// v5: flexible; the result carries the topic's configs, partitions and
// replication factor. v7: topic_id.
// Behaviour: ControllerApis.createTopics / ReplicationControlManager.
// ACLs: CREATE on the cluster or the topic, else TOPIC_AUTHORIZATION_FAILED
// "Authorization failed." (a name sent twice is refused as a duplicate
// first); a created topic's configs are left out, with
// topic_config_error_code TOPIC_AUTHORIZATION_FAILED, without DESCRIBE_CONFIGS.
// controller_mutation_rate (KIP-599): each topic that passed every other check
// is charged its partition count, strict from v6 (THROTTLING_QUOTA_EXCEEDED,
// no message, for a topic charged while in debt), permissive before;
// validate_only is charged too (ReplicationControlManager.createTopic).
// Recorded: conformance/recordings/controller-mutation-quota.json.
// Difference (conformance/differences.md): a replication factor above the
// single broker's 1 is accepted, where a one-broker Kafka refuses it.
#include <algorithm>
#include <set>
#include <variant>

#include "broker/blocking.h"
#include "broker/handlers/error_rows.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "broker/quota_accounting.h"
#include "broker/topics.h"
#include "meta/describe_configs.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using result_t = create_topics_response::creatable_topic_result;

void fill_success(result_t& r, const meta::topic& t, const meta::broker_defaults& defaults, int16_t v,
                  bool may_describe_configs) {
    r.topic_id = t.id;
    r.num_partitions = t.partition_count;
    r.replication_factor = t.replication_factor;
    if (v < 5) return;
    if (!may_describe_configs) {
        r.topic_config_error_code = code(error_code::topic_authorization_failed);
        return;
    }
    auto& out = r.configs.emplace();
    for (auto& e : meta::create_topic_result_configs(t.configs, defaults)) {
        auto& c = out.emplace_back();
        c.name = e.name;
        c.value = e.value;
        c.read_only = e.read_only;
        c.config_source = int8_t(e.source);
        c.is_sensitive = e.sensitive;
    }
}

// The quota comes after every other check: every entry is validated first,
// the ones that passed are charged in request order, and only those the
// quota accepts are created. `throttled[k]`: entry k refused by the quota.
std::vector<result<meta::topic, meta::error>> create_charged(broker_context& b,
                                                             const std::vector<meta::create_topic_args>& args,
                                                             bool validate_only, security::mutation_quota& quota,
                                                             std::vector<bool>& throttled) {
    auto out = create_topics(b, args, true);
    std::vector<meta::create_topic_args> accepted;
    std::vector<size_t> slot;
    for (size_t k = 0; k < out.size(); ++k) {
        if (!out[k].ok()) continue;
        if (!charge_mutation(quota, args[k].partition_count)) {
            throttled[k] = true;
            continue;
        }
        accepted.push_back(args[k]);
        slot.push_back(k);
    }
    auto created = create_topics(b, accepted, validate_only);
    for (size_t j = 0; j < created.size(); ++j) out[slot[j]] = std::move(created[j]);
    return out;
}

struct refusal {
    error_code code;
    std::string message;
};

// ReplicationControlManager: partitions numbered 0..n-1 without gaps, no
// broker twice in one partition, only registered brokers. Empty when valid.
std::string assignment_problem(const create_topics_request::creatable_topic& t, const std::set<int32_t>& registered) {
    for (size_t k = 0; k < t.assignments.size(); ++k) {
        auto& asg = t.assignments[k];
        if (asg.partition_index != int32_t(k))
            return "Unable to create topic " + t.name +
                   " because the partition assignment has a gap or is out of order.";
        std::set<int32_t> ids(asg.broker_ids.begin(), asg.broker_ids.end());
        if (ids.size() != asg.broker_ids.size())
            return "The manual partition assignment includes the same broker twice.";
        for (auto id : asg.broker_ids)
            if (!registered.contains(id))
                return "The manual partition assignment includes broker " + std::to_string(id) +
                       ", but no such broker is registered.";
    }
    return {};
}

// What the registry is asked to create for `t`, or why the handler refuses it.
std::variant<meta::create_topic_args, refusal> topic_args(const create_topics_request::creatable_topic& t,
                                                          const broker_config& config,
                                                          const std::set<int32_t>& registered) {
    meta::create_topic_args a;
    a.name = t.name;
    if (!t.assignments.empty()) {
        if (t.num_partitions != -1 || t.replication_factor != -1)
            return refusal{error_code::invalid_request,
                           "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be "
                           "used at the same time."};
        if (auto bad = assignment_problem(t, registered); !bad.empty())
            return refusal{error_code::invalid_replica_assignment, bad};
        a.partition_count = int32_t(t.assignments.size());
        a.replication_factor = int16_t(t.assignments.front().broker_ids.size());
    } else {
        a.partition_count = t.num_partitions == -1 ? config.default_partitions : t.num_partitions;
        a.replication_factor = t.replication_factor == -1 ? config.default_replication_factor : t.replication_factor;
    }
    std::string null_keys;
    for (auto& c : t.configs) {
        if (!c.value)
            null_keys += (null_keys.empty() ? "" : ",") + c.name;
        else
            a.configs[c.name] = *c.value;
    }
    if (!null_keys.empty())
        return refusal{error_code::invalid_config, "Null value not supported for topic configs: " + null_keys};
    return a;
}

}  // namespace

awaitable<create_topics_response> handle_create_topics(request_context& ctx, create_topics_request& req) {
    auto& b = ctx.broker;
    const int16_t v = ctx.api_version;
    create_topics_response resp;

    // Entries the handler itself refuses keep their slot; the rest go to the
    // registry together, so '.'/'_' collisions and duplicates are judged as
    // Kafka judges them (against the topics that existed before the request).
    std::vector<meta::create_topic_args> args;
    std::vector<size_t> arg_slot;
    for (size_t i = 0; i < req.topics.size(); ++i) {
        auto& t = req.topics[i];
        auto& r = resp.topics.emplace_back();
        r.name = t.name;
        r.error_message = std::nullopt;
        const bool once =
            std::count_if(req.topics.begin(), req.topics.end(), [&](auto& o) { return o.name == t.name; }) == 1;
        if (once && !ctx.authorize_cluster(security::acl_operation::create) &&
            !ctx.authorize(security::acl_operation::create, security::resource_type::topic, t.name)) {
            r.error_code = code(error_code::topic_authorization_failed);
            r.error_message = "Authorization failed.";
            continue;
        }
        auto a = topic_args(t, b.config, registered_brokers(ctx));
        if (auto* no = std::get_if<refusal>(&a)) {
            r.error_code = code(no->code);
            r.error_message = std::move(no->message);
            continue;
        }
        args.push_back(std::move(std::get<meta::create_topic_args>(a)));
        arg_slot.push_back(i);
    }

    auto quota = mutation_quota_for(ctx, 6);
    std::vector<bool> throttled(args.size(), false);
    // The topics are written (cluster mode: in PostgreSQL): store_answer.
    auto results = co_await store_answer<std::vector<result<meta::topic, meta::error>>>(b, [&] {
        return quota.bounded() ? create_charged(b, args, req.validate_only, quota, throttled)
                               : create_topics(b, args, req.validate_only);
    });
    finish_mutations(ctx, quota);
    for (size_t k = 0; k < results.size(); ++k) {
        auto& r = resp.topics[arg_slot[k]];
        if (throttled[k]) {
            r.error_code = code(error_code::throttling_quota_exceeded);  // no message (recorded)
            continue;
        }
        if (results[k].ok()) {
            fill_success(
                r, *results[k], b.topics.defaults(), v,
                ctx.authorize(security::acl_operation::describe_configs, security::resource_type::topic, r.name));
        } else {
            r.error_code = code(to_kafka(results[k].error().code));
            r.error_message = results[k].error().message;
        }
    }
    // Kafka keys the answer by topic name: a name sent twice is answered once.
    std::set<std::string> answered;
    std::erase_if(resp.topics, [&](const result_t& r) { return !answered.insert(r.name).second; });
    co_return resp;
}

// CreateTopicsRequest.getErrorResponse: each topic with the error and the
// exception's message.
std::optional<create_topics_response> create_topics_error(const create_topics_request& req, int16_t,
                                                          const error_answer& e) {
    create_topics_response resp;
    topic_error_rows(resp.topics, req.topics, e);
    return resp;
}

}  // namespace ketch::broker
