// Metadata v0-13. v1: null topics = all, is_internal, controller, rack.
// v2: cluster_id. v4: allow_auto_topic_creation. v5: offline_replicas.
// v7: leader_epoch. v8: authorized operations. v9: flexible. v10: topic ids.
// v11: cluster operations dropped. v13: top-level error_code.
// Behaviour: KafkaApis.handleTopicMetadataRequest / AutoTopicCreationManager.
// ACLs: topics without DESCRIBE are left out of an all-topics answer; a
// named one is answered TOPIC_AUTHORIZATION_FAILED (no id, its existence
// undisclosed), as is a missing one to be auto-created without CREATE on the
// cluster or the topic; Kafka lists those after the others (create-denied,
// then describe-denied). Authorized operations come from the ACLs.
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/topics.h"
#include "meta/topic_name.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// All operations of a TOPIC resource (READ, WRITE, CREATE, DELETE, ALTER,
// DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS) as the bitfield Kafka reports
// when nothing restricts the principal.
constexpr int32_t k_all_topic_operations = (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) |
                                           (1 << 10) | (1 << 11);

// CLUSTER operations CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS,
// ALTER_CONFIGS, IDEMPOTENT_WRITE (8096, as recorded from Kafka 4.3.1).
constexpr int32_t k_all_cluster_operations = (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) |
                                             (1 << 12);

metadata_response::metadata_response_topic describe(const request_context& ctx, const meta::topic& t,
                                                    bool with_ops) {
    const int32_t node = ctx.broker.config.node_id;
    metadata_response::metadata_response_topic out;
    out.name = t.name;
    out.topic_id = t.id;
    out.is_internal = false;
    for (int32_t p = 0; p < t.partition_count; ++p) {
        auto& mp = out.partitions.emplace_back();
        mp.partition_index = p;
        mp.leader_id = node;
        mp.leader_epoch = 0;
        mp.replica_nodes = {node};
        mp.isr_nodes = {node};
    }
    if (with_ops)
        out.topic_authorized_operations =
            authorized_operations(ctx, security::resource_type::topic, t.name, k_all_topic_operations);
    return out;
}

metadata_response::metadata_response_topic topic_error(std::optional<std::string> name, uuid id, error_code e) {
    metadata_response::metadata_response_topic out;
    out.error_code = code(e);
    out.name = std::move(name);
    out.topic_id = id;
    return out;
}

}  // namespace

awaitable<metadata_response> handle_metadata(request_context& ctx, metadata_request& req) {
    auto& b = ctx.broker;
    const int16_t v = ctx.api_version;
    metadata_response resp;
    auto ep = b.config.advertised_for(ctx.conn.listener_name);
    resp.brokers.push_back({b.config.node_id, ep.host, ep.port, std::nullopt, {}});
    resp.cluster_id = b.config.cluster_id;
    resp.controller_id = b.config.node_id;
    const bool with_ops = req.include_topic_authorized_operations;

    if (req.include_cluster_authorized_operations)
        resp.cluster_authorized_operations =
            !ctx.authorize_cluster(security::acl_operation::describe)
                ? 0
                : authorized_operations(ctx, security::resource_type::cluster,
                                        std::string(security::cluster_resource_name), k_all_cluster_operations);
    auto may_describe = [&](const std::string& name) {
        return ctx.authorize(security::acl_operation::describe, security::resource_type::topic, name);
    };
    const bool all_topics = !req.topics || (v == 0 && req.topics->empty());
    if (all_topics) {
        for (auto& t : b.topics.list())
            if (may_describe(t.name)) resp.topics.push_back(describe(ctx, t, with_ops));
        co_return resp;
    }
    std::vector<metadata_response::metadata_response_topic> create_denied, describe_denied;
    const bool may_create = b.config.auto_create_topics && (v < 4 || req.allow_auto_topic_creation);
    // Kafka answers each named topic once (KafkaApis takes the names as a set).
    std::set<std::string> seen_names;
    std::set<uuid> seen_ids;
    for (auto& rt : *req.topics) {
        if (rt.name && !rt.name->empty() ? !seen_names.insert(*rt.name).second : !seen_ids.insert(rt.topic_id).second)
            continue;
        if (!rt.name || rt.name->empty()) {
            if (!rt.topic_id.is_zero()) {
                if (auto t = b.topics.by_id(rt.topic_id)) {
                    if (!may_describe(t->name))  // ids are not secret: the id is answered
                        describe_denied.push_back(topic_error(std::nullopt, t->id, error_code::topic_authorization_failed));
                    else
                        resp.topics.push_back(describe(ctx, *t, with_ops));
                } else {
                    resp.topics.push_back(topic_error(std::nullopt, rt.topic_id, error_code::unknown_topic_id));
                }
                continue;
            }
            resp.topics.push_back(topic_error(rt.name, {}, error_code::invalid_topic_exception));
            continue;
        }
        const std::string& name = *rt.name;
        if (!may_describe(name)) {
            describe_denied.push_back(topic_error(name, {}, error_code::topic_authorization_failed));
            continue;
        }
        if (auto t = b.topics.by_name(name)) {
            resp.topics.push_back(describe(ctx, *t, with_ops));
            continue;
        }
        if (meta::validate_topic_name(name)) {
            resp.topics.push_back(topic_error(name, {}, error_code::invalid_topic_exception));
            continue;
        }
        if (!may_create) {
            resp.topics.push_back(topic_error(name, {}, error_code::unknown_topic_or_partition));
            continue;
        }
        if (!ctx.authorize_cluster(security::acl_operation::create) &&
            !ctx.authorize(security::acl_operation::create, security::resource_type::topic, name)) {
            create_denied.push_back(topic_error(name, {}, error_code::topic_authorization_failed));
            continue;
        }
        // Kafka 4.3.1 answers UNKNOWN_TOPIC_OR_PARTITION to the request that
        // triggers the creation (recorded: conformance/recordings/metadata.json);
        // the client asks again and then sees the topic.
        auto created = auto_create_topic(b, name);
        if (created.ok() || created.error().code == meta::errc::topic_already_exists) {
            resp.topics.push_back(topic_error(name, {}, error_code::unknown_topic_or_partition));
        } else {
            resp.topics.push_back(topic_error(name, {}, to_kafka(created.error().code)));
        }
    }
    for (auto& t : create_denied) resp.topics.push_back(std::move(t));
    for (auto& t : describe_denied) resp.topics.push_back(std::move(t));
    co_return resp;
}

// MetadataRequest.getErrorResponse: the top-level error (v13+) and each named
// topic with it; none for a request of all topics.
std::optional<metadata_response> metadata_error(const metadata_request& req, int16_t, const error_answer& e) {
    metadata_response resp;
    resp.error_code = e.code;
    if (req.topics)
        for (auto& t : *req.topics) {
            auto& rt = error_row(resp.topics, e);
            rt.name = t.name.value_or("");
            rt.topic_id = t.topic_id;
        }
    return resp;
}

}  // namespace ketch::broker
