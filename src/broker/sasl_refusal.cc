#include "broker/sasl_refusal.h"
#include "broker/sasl_refusal_detail.h"

#include <cctype>

#include "base/error_code.h"
#include "broker/handler.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/sasl_handshake.h"

namespace ketch::broker {
namespace {

using sasl_refusal_detail::answer;
using sasl_refusal_detail::k_illegal;
using sasl_refusal_detail::with_error;

// Errors.ILLEGAL_SASL_STATE's default message: what APIs that answer
// Errors.forException(e).message() carry instead of the exception's.
constexpr const char* k_default_message = "Request is not valid given the current SASL state.";

kafka::produce_response produce(const kafka::produce_request& req, const std::string& message) {
    kafka::produce_response resp;
    for (auto& t : req.topic_data) {
        auto& rt = resp.responses.emplace_back();
        rt.name = t.name;
        rt.topic_id = t.topic_id;
        for (auto& p : t.partition_data) {
            auto& rp = rt.partition_responses.emplace_back();
            rp.index = p.index;
            rp.error_code = k_illegal;
            rp.base_offset = -1;
            rp.error_message = message;
        }
    }
    return resp;
}

kafka::metadata_response metadata(const kafka::metadata_request& req) {
    kafka::metadata_response resp;
    resp.error_code = k_illegal;
    if (req.topics)
        for (auto& t : *req.topics) {
            auto& rt = resp.topics.emplace_back();
            rt.name = t.name.value_or("");
            rt.topic_id = t.topic_id;
            rt.error_code = k_illegal;
        }
    return resp;
}

kafka::fetch_response fetch(const kafka::fetch_request& req) {
    kafka::fetch_response resp;
    resp.error_code = k_illegal;
    for (auto& t : req.topics) {
        auto& rt = resp.responses.emplace_back();
        rt.topic = t.topic;
        rt.topic_id = t.topic_id;
        for (auto& p : t.partitions) {
            auto& rp = rt.partitions.emplace_back();
            rp.partition_index = p.partition;
            rp.error_code = k_illegal;
            rp.high_watermark = -1;
            rp.records = kafka::records{};
        }
    }
    return resp;
}

kafka::list_offsets_response list_offsets(const kafka::list_offsets_request& req) {
    kafka::list_offsets_response resp;
    for (auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        for (auto& p : t.partitions) {
            auto& rp = rt.partitions.emplace_back();
            rp.partition_index = p.partition_index;
            rp.error_code = k_illegal;
        }
    }
    return resp;
}

kafka::find_coordinator_response find_coordinator(const kafka::find_coordinator_request& req) {
    kafka::find_coordinator_response resp;
    resp.error_code = k_illegal;
    resp.error_message = k_default_message;
    resp.node_id = -1;
    resp.port = -1;
    for (auto& key : req.coordinator_keys) {
        auto& c = resp.coordinators.emplace_back();
        c.key = key;
        c.node_id = -1;
        c.port = -1;
        c.error_code = k_illegal;
        c.error_message = k_default_message;
    }
    return resp;
}

kafka::create_topics_response create_topics(const kafka::create_topics_request& req, const std::string& message) {
    kafka::create_topics_response resp;
    for (auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        rt.error_code = k_illegal;
        rt.error_message = message;
    }
    return resp;
}

kafka::offset_fetch_response offset_fetch(const kafka::offset_fetch_request& req, int16_t version) {
    kafka::offset_fetch_response resp;
    if (version >= 8) {
        for (auto& g : req.groups) {
            auto& rg = resp.groups.emplace_back();
            rg.group_id = g.group_id;
            rg.error_code = k_illegal;
        }
    } else if (version >= 2) {
        resp.error_code = k_illegal;
    } else if (req.topics) {
        for (auto& t : *req.topics) {
            auto& rt = resp.topics.emplace_back();
            rt.name = t.name;
            for (int32_t p : t.partition_indexes) {
                auto& rp = rt.partitions.emplace_back();
                rp.partition_index = p;
                rp.committed_offset = -1;
                rp.error_code = k_illegal;
            }
        }
    }
    return resp;
}

kafka::describe_configs_response describe_configs(const kafka::describe_configs_request& req) {
    kafka::describe_configs_response resp;
    for (auto& res : req.resources) {
        auto& rr = resp.results.emplace_back();
        rr.error_code = k_illegal;
        rr.error_message = k_default_message;
        rr.resource_type = res.resource_type;
        rr.resource_name = res.resource_name;
    }
    return resp;
}

}  // namespace

std::string api_enum_name(std::string_view camel) {
    std::string out;
    for (size_t i = 0; i < camel.size(); ++i) {
        char c = camel[i];
        if (i > 0 && std::isupper(static_cast<unsigned char>(c))) out += '_';
        out += char(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

std::optional<net::handler_result> illegal_sasl_state_response(const request_context& ctx, kafka::reader& r) {
    const kafka::api_info* api = kafka::find_api(ctx.api_key);
    if (!api) return std::nullopt;
    const std::string message =
        "Unexpected Kafka request of type " + api_enum_name(api->name) + " during SASL authentication.";
    using k = kafka::api_key;
    switch (kafka::api_key(ctx.api_key)) {
        case k::produce:
            // ProduceRequest.getErrorResponse answers nothing for acks=0;
            // Kafka then fails building the answer and closes.
            return answer<kafka::produce_request>(ctx, r, [&](const kafka::produce_request& q) {
                return q.acks == 0 ? std::nullopt : std::optional(produce(q, message));
            });
        case k::fetch:
            return answer<kafka::fetch_request>(ctx, r, fetch);
        case k::list_offsets:
            return answer<kafka::list_offsets_request>(ctx, r, list_offsets);
        case k::metadata:
            return answer<kafka::metadata_request>(ctx, r, metadata);
        case k::offset_fetch:
            return answer<kafka::offset_fetch_request>(
                ctx, r, [&](const kafka::offset_fetch_request& q) { return offset_fetch(q, ctx.api_version); });
        case k::find_coordinator:
            return answer<kafka::find_coordinator_request>(ctx, r, find_coordinator);
        case k::join_group:
            return answer<kafka::join_group_request>(
                ctx, r, [](const auto&) { return with_error<kafka::join_group_response>(); });
        case k::heartbeat:
            return answer<kafka::heartbeat_request>(
                ctx, r, [](const auto&) { return with_error<kafka::heartbeat_response>(); });
        case k::sasl_handshake:
            return answer<kafka::sasl_handshake_request>(
                ctx, r, [](const auto&) { return with_error<kafka::sasl_handshake_response>(); });
        case k::api_versions:
            return answer<kafka::api_versions_request>(
                ctx, r, [](const auto&) { return with_error<kafka::api_versions_response>(); });
        case k::create_topics:
            return answer<kafka::create_topics_request>(
                ctx, r, [&](const kafka::create_topics_request& q) { return create_topics(q, message); });
        case k::init_producer_id:
            return answer<kafka::init_producer_id_request>(ctx, r, [](const auto&) {
                auto resp = with_error<kafka::init_producer_id_response>();
                resp.producer_epoch = -1;
                return resp;
            });
        case k::describe_configs:
            return answer<kafka::describe_configs_request>(ctx, r, describe_configs);
        case k::describe_cluster:
            return answer<kafka::describe_cluster_request>(ctx, r, [&](const auto&) {
                auto resp = with_error<kafka::describe_cluster_response>();
                resp.error_message = message;
                return resp;
            });
        default:
            return illegal_sasl_state_group_response(ctx, r, message);
    }
}

}  // namespace ketch::broker
