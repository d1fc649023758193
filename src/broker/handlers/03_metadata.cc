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

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "broker/tenant_topics.h"
#include "broker/topic_read_through.h"
#include "broker/topics.h"
#include "meta/topic_name.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// CLUSTER operations CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS,
// ALTER_CONFIGS, IDEMPOTENT_WRITE (8096, as recorded from Kafka 4.3.1).
constexpr int32_t k_all_cluster_operations =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);

metadata_response::metadata_response_topic describe_topic(const request_context& ctx, const meta::topic& t,
                                                          bool with_ops) {
    const int32_t self = ctx.broker.config.node_id;
    metadata_response::metadata_response_topic out;
    out.name = t.name;
    out.topic_id = t.id;
    out.is_internal = meta::is_internal_topic(t.name);
    // Cluster mode: any live broker serves any partition of the shared log;
    // leaders are spread evenly over those whose PostgreSQL session is open
    // (partition_leaders: rendezvous hashing of topic id and partition with
    // bounded loads), so a killed broker's partitions move before its
    // session times out. The internal topics' data stays on each broker.
    std::vector<listed_broker> live;
    if (ctx.broker.cluster && !out.is_internal) live = serving_brokers(ctx);
    const auto leaders =
        live.empty() ? std::vector<int32_t>() : partition_leaders(live, t.id.to_base64(), t.partition_count);
    for (int32_t p = 0; p < t.partition_count; ++p) {
        auto& mp = out.partitions.emplace_back();
        const int32_t node = live.empty() ? self : leaders[size_t(p)];
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

metadata_response::metadata_response_topic metadata_topic_error(std::optional<std::string> name, uuid id,
                                                                error_code e) {
    metadata_response::metadata_response_topic out;
    out.error_code = code(e);
    // Kafka sets is_internal on error rows too (Topic.isInternal of the name).
    out.is_internal = name && meta::is_internal_topic(*name);
    out.name = std::move(name);
    out.topic_id = id;
    return out;
}

// The answer for named topics (or ids): found ones in request order, then
// those refused CREATE, then those refused DESCRIBE, as Kafka lists them.
class named_topics {
public:
    named_topics(request_context& ctx, const metadata_request& req, metadata_response& resp)
        : ctx_(ctx),
          resp_(resp),
          with_ops_(req.include_topic_authorized_operations),
          may_create_(ctx.broker.config.auto_create_topics && (ctx.api_version < 4 || req.allow_auto_topic_creation)) {}

    void by_id(uuid id) {
        auto t = ctx_.broker.topics.by_id(id);
        if (!t) return resp_.topics.push_back(metadata_topic_error(std::nullopt, id, error_code::unknown_topic_id));
        if (!may_describe(t->name))  // ids are not secret: the id is answered
            return describe_denied_.push_back(
                metadata_topic_error(std::nullopt, t->id, error_code::topic_authorization_failed));
        resp_.topics.push_back(describe_topic(ctx_, *t, with_ops_));
    }

    void by_name(const std::string& name) {
        if (!may_describe(name))
            return describe_denied_.push_back(metadata_topic_error(name, {}, error_code::topic_authorization_failed));
        if (auto t = ctx_.broker.topics.by_name(name))
            return resp_.topics.push_back(describe_topic(ctx_, *t, with_ops_));
        if (check_topic_name(ctx_.broker, name))
            return resp_.topics.push_back(metadata_topic_error(name, {}, error_code::invalid_topic_exception));
        if (!may_create_)
            return resp_.topics.push_back(metadata_topic_error(name, {}, error_code::unknown_topic_or_partition));
        if (!ctx_.authorize_cluster(security::acl_operation::create) &&
            !ctx_.authorize(security::acl_operation::create, security::resource_type::topic, name))
            return create_denied_.push_back(metadata_topic_error(name, {}, error_code::topic_authorization_failed));
        // Kafka 4.3.1 answers UNKNOWN_TOPIC_OR_PARTITION to the request that
        // triggers the creation (recorded: conformance/recordings/metadata.json);
        // the client asks again and then sees the topic. Created by create_pending.
        creations_.emplace_back(resp_.topics.size(), name);
        resp_.topics.push_back(metadata_topic_error(name, {}, error_code::unknown_topic_or_partition));
    }

    bool creates() const { return !creations_.empty(); }
    // The topics by_name auto-creates (a store write: cluster mode, in
    // PostgreSQL); a creation that failed answers its error instead.
    // __consumer_offsets is created as the group coordinator has it
    // (AutoTopicCreationManager.creatableTopic).
    void create_pending() {
        for (auto& [row, name] : creations_) {
            auto created = name == meta::consumer_offsets_topic && ctx_.broker.consumer_offsets
                               ? create_offsets_topic(ctx_.broker)
                               : auto_create_topic(ctx_.broker, name);
            if (!created.ok() && created.error().code != meta::errc::topic_already_exists)
                resp_.topics[row].error_code = code(to_kafka(created.error().code));
        }
    }

    void finish() {
        for (auto& t : create_denied_) resp_.topics.push_back(std::move(t));
        for (auto& t : describe_denied_) resp_.topics.push_back(std::move(t));
    }

private:
    bool may_describe(const std::string& name) const {
        return ctx_.authorize(security::acl_operation::describe, security::resource_type::topic, name);
    }

    request_context& ctx_;
    metadata_response& resp_;
    const bool with_ops_;
    const bool may_create_;
    std::vector<metadata_response::metadata_response_topic> create_denied_, describe_denied_;
    std::vector<std::pair<size_t, std::string>> creations_;  // (row in resp_.topics, name)
};

}  // namespace

awaitable<metadata_response> handle_metadata(request_context& ctx, metadata_request& req) {
    auto& b = ctx.broker;
    metadata_response resp;
    if (!b.cluster) {
        auto ep = b.config.advertised_for(ctx.conn.listener_name);
        resp.brokers.push_back({b.config.node_id, ep.host, ep.port, std::nullopt, {}});
    } else {  // cluster mode: every live broker
        for (auto& lb : live_brokers(ctx)) resp.brokers.push_back({lb.node_id, lb.host, lb.port, lb.rack, {}});
    }
    resp.cluster_id = b.config.cluster_id;
    resp.controller_id = b.config.node_id;
    if (req.include_cluster_authorized_operations)
        resp.cluster_authorized_operations = !ctx.authorize_cluster(security::acl_operation::describe)
                                                 ? 0
                                                 : cluster_authorized_operations(ctx, k_all_cluster_operations);
    if (!req.topics || (ctx.api_version == 0 && req.topics->empty())) {  // all topics
        for (auto& t : listed_topics(ctx))
            if (ctx.authorize(security::acl_operation::describe, security::resource_type::topic, t.name))
                resp.topics.push_back(describe_topic(ctx, t, req.include_topic_authorized_operations));
        co_return resp;
    }
    // Cluster mode: a named topic not heard of yet is read through (once a
    // second per name: a producer waiting for a topic asks again and again).
    co_await read_through_topics(ctx, *req.topics,
                                 [](auto& t) { return t.name ? std::string_view(*t.name) : std::string_view(); });
    named_topics named(ctx, req, resp);
    // Kafka answers each named topic once (KafkaApis takes the names as a set).
    std::set<std::string> seen_names;
    std::set<uuid> seen_ids;
    for (auto& rt : *req.topics) {
        bool has_name = rt.name && !rt.name->empty();
        if (has_name ? !seen_names.insert(*rt.name).second : !seen_ids.insert(rt.topic_id).second) continue;
        if (has_name)
            named.by_name(*rt.name);
        else if (!rt.topic_id.is_zero())
            named.by_id(rt.topic_id);
        else
            resp.topics.push_back(metadata_topic_error(rt.name, {}, error_code::invalid_topic_exception));
    }
    if (named.creates()) co_await store_call(b, [&named] { named.create_pending(); });
    named.finish();
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
