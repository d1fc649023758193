// ILLEGAL_SASL_STATE error responses that list the request's topics,
// partitions, groups or coordinator keys (produce, fetch, metadata, group,
// transaction and topic-admin APIs), as Kafka 4.3.1's
// AbstractRequest.getErrorResponse answers them (see sasl_refusal.h;
// recorded: conformance/recordings/acl-sasl-states.json).
#include "broker/sasl_refusal_detail.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/txn_offset_commit.h"

namespace ketch::broker::sasl_refusal_detail {
namespace {

// Every partition of the request's topics, with the error.
template <class Resp, class Req>
Resp per_partition(const Req& req) {
    Resp resp;
    for (auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        if constexpr (requires { rt.topic_id = t.topic_id; }) rt.topic_id = t.topic_id;
        for (auto& p : t.partitions) {
            auto& rp = error_row(rt.partitions);
            rp.partition_index = p.partition_index;
        }
    }
    return resp;
}

// CreateTopics / CreatePartitions: one row per topic, by name, with the
// error and the exception's message.
template <class Req, class Resp, auto Rows>
std::optional<net::handler_result> named_rows(const request_context& ctx, kafka::reader& r,
                                              const std::string& message) {
    return per_row<Req, Resp>(ctx, r, &Req::topics, [&](Resp& resp, auto& t) {
        auto& row = error_row(resp.*Rows);
        row.name = t.name;
        row.error_message = message;
    });
}

}  // namespace

using result = std::optional<net::handler_result>;

namespace lists {

result produce(const request_context& ctx, kafka::reader& r, const std::string& message) {
    // ProduceRequest.getErrorResponse answers nothing for acks=0; Kafka then
    // fails building the answer and closes.
    return answer<kafka::produce_request>(ctx, r, [&](const kafka::produce_request& req) {
        std::optional<kafka::produce_response> resp;
        if (req.acks == 0) return resp;
        resp.emplace();
        for (auto& t : req.topic_data) {
            auto& rt = resp->responses.emplace_back();
            rt.name = t.name;
            rt.topic_id = t.topic_id;
            for (auto& p : t.partition_data) {
                auto& rp = error_row(rt.partition_responses);
                rp.index = p.index;
                rp.base_offset = -1;
                rp.error_message = message;
            }
        }
        return resp;
    });
}

result metadata(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::metadata_request>(ctx, r, [](const kafka::metadata_request& req) {
        kafka::metadata_response resp;
        resp.error_code = k_illegal;
        if (req.topics)
            for (auto& t : *req.topics) {
                auto& rt = error_row(resp.topics);
                rt.name = t.name.value_or("");
                rt.topic_id = t.topic_id;
            }
        return resp;
    });
}

result fetch(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::fetch_request>(ctx, r, [](const kafka::fetch_request& req) {
        kafka::fetch_response resp;
        resp.error_code = k_illegal;
        for (auto& t : req.topics) {
            auto& rt = resp.responses.emplace_back();
            rt.topic = t.topic;
            rt.topic_id = t.topic_id;
            for (auto& p : t.partitions) {
                auto& rp = error_row(rt.partitions);
                rp.partition_index = p.partition;
                rp.high_watermark = -1;
                rp.records = kafka::records{};
            }
        }
        return resp;
    });
}

result list_offsets(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::list_offsets_request>(
        ctx, r, per_partition<kafka::list_offsets_response, kafka::list_offsets_request>);
}

result offset_commit(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::offset_commit_request>(
        ctx, r, per_partition<kafka::offset_commit_response, kafka::offset_commit_request>);
}

result txn_offset_commit(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::txn_offset_commit_request>(
        ctx, r, per_partition<kafka::txn_offset_commit_response, kafka::txn_offset_commit_request>);
}

result find_coordinator(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::find_coordinator_request>(ctx, r, [](const kafka::find_coordinator_request& req) {
        kafka::find_coordinator_response resp;
        resp.error_code = k_illegal;
        resp.error_message = k_default_message;
        resp.node_id = -1;
        resp.port = -1;
        for (auto& key : req.coordinator_keys) {
            auto& c = error_row(resp.coordinators);
            c.key = key;
            c.node_id = -1;
            c.port = -1;
            c.error_message = k_default_message;
        }
        return resp;
    });
}

result create_topics(const request_context& ctx, kafka::reader& r, const std::string& message) {
    return named_rows<kafka::create_topics_request, kafka::create_topics_response,
                      &kafka::create_topics_response::topics>(ctx, r, message);
}

result offset_fetch(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::offset_fetch_request>(ctx, r, [&](const kafka::offset_fetch_request& req) {
        kafka::offset_fetch_response resp;
        if (ctx.api_version >= 8) {
            for (auto& g : req.groups) {
                error_row(resp.groups).group_id = g.group_id;
            }
        } else if (ctx.api_version >= 2) {
            resp.error_code = k_illegal;
        } else if (req.topics) {
            for (auto& t : *req.topics) {
                auto& rt = resp.topics.emplace_back();
                rt.name = t.name;
                for (int32_t p : t.partition_indexes) {
                    auto& rp = error_row(rt.partitions);
                    rp.partition_index = p;
                    rp.committed_offset = -1;
                }
            }
        }
        return resp;
    });
}

result init_producer_id(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::init_producer_id_request>(ctx, r, [](const auto&) {
        kafka::init_producer_id_response resp;
        resp.error_code = k_illegal;
        resp.producer_epoch = -1;
        return resp;
    });
}

result describe_configs(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = kafka::describe_configs_request;
    return per_row<req, kafka::describe_configs_response>(ctx, r, &req::resources, [](auto& resp, auto& res) {
        auto& rr = error_row(resp.results);
        rr.error_message = k_default_message;
        rr.resource_type = res.resource_type;
        rr.resource_name = res.resource_name;
    });
}

result describe_groups(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = kafka::describe_groups_request;
    return per_row<req, kafka::describe_groups_response>(ctx, r, &req::groups,
        [](auto& resp, auto& g) { error_row(resp.groups).group_id = g; });
}

result delete_topics(const request_context& ctx, kafka::reader& r, const std::string&) {
    return answer<kafka::delete_topics_request>(ctx, r, [](const kafka::delete_topics_request& req) {
        kafka::delete_topics_response resp;
        for (auto& t : req.topics) {
            auto& rt = error_row(resp.responses);
            rt.name = t.name;
            rt.topic_id = t.topic_id;
        }
        for (auto& n : req.topic_names) error_row(resp.responses).name = n;
        return resp;
    });
}

result create_partitions(const request_context& ctx, kafka::reader& r, const std::string& message) {
    return named_rows<kafka::create_partitions_request, kafka::create_partitions_response,
                      &kafka::create_partitions_response::results>(ctx, r, message);
}

}  // namespace lists
}  // namespace ketch::broker::sasl_refusal_detail
