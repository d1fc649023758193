// DescribeConfigs v1-4. v1: include_synonyms, config_source. v3:
// include_documentation, config_type. v4: flexible.
// Behaviour: KafkaApis.handleDescribeConfigsRequest, ConfigHelper.describeConfigs,
// ConfigHelperUtils.createResponseConfig. Topic configs come from
// meta::describe_topic_configs, broker configs from meta::broker_configs,
// group and client metrics configs from broker/resource_configs.h.
#include "broker/handlers/handlers.h"
#include "broker/resource_configs.h"
#include "broker/runtime_configs.h"
#include "broker/topic_read_through.h"
#include "meta/describe_configs.h"
#include "meta/topic_name.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using resource_result = describe_configs_response::describe_configs_result;

// ConfigHelperUtils.createResponseConfig: null or empty keys ask for every config.
bool wanted(const std::optional<std::vector<std::string>>& keys, const std::string& name) {
    if (!keys || keys->empty()) return true;
    for (auto& k : *keys)
        if (k == name) return true;
    return false;
}

// A value as DescribeConfigs shows it: null for a sensitive config (its
// synonyms too) and for one without a value.
std::optional<std::string> shown_value(bool sensitive, bool null_value, const std::string& value) {
    if (sensitive || null_value) return std::nullopt;
    return value;
}

void add_entries(resource_result& out, const std::vector<meta::config_entry>& entries,
                 const describe_configs_request& req, const describe_configs_request::describe_configs_resource& r) {
    for (auto& e : entries) {
        if (!wanted(r.configuration_keys, e.name)) continue;
        auto& c = out.configs.emplace_back();
        c.name = e.name;
        c.value = shown_value(e.sensitive, e.null_value, e.value);
        c.read_only = e.read_only;
        c.config_source = int8_t(e.source);
        c.is_sensitive = e.sensitive;
        c.config_type = int8_t(e.type);
        if (req.include_synonyms)
            for (auto& s : e.synonyms) {
                auto& syn = c.synonyms.emplace_back();
                syn.name = s.name;
                syn.value = shown_value(e.sensitive, s.null_value, s.value);
                syn.source = int8_t(s.source);
            }
        // A broker logger always carries "" (recorded); otherwise only when asked.
        if (req.include_documentation || e.source == meta::config_source(6))
            c.documentation.emplace(e.documentation);
        else
            c.documentation.reset();
    }
}

}  // namespace

awaitable<describe_configs_response> handle_describe_configs(request_context& ctx, describe_configs_request& req) {
    auto& b = ctx.broker;
    co_await read_through_topics(ctx, req.resources, [](auto& r) {
        return r.resource_type == k_resource_topic ? std::string_view(r.resource_name) : std::string_view();
    });
    describe_configs_response resp;
    // KafkaApis.handleDescribeConfigsRequest: DESCRIBE_CONFIGS on the topic
    // (group: the group; broker, logger, client metrics: the cluster); refused
    // resources come after the others.
    std::vector<describe_configs_response::describe_configs_result> denied;
    for (auto& r : req.resources) {
        const bool on_topic = r.resource_type == k_resource_topic, on_group = r.resource_type == k_resource_group;
        if ((on_topic || on_group || r.resource_type == k_resource_broker ||
             r.resource_type == k_resource_broker_logger || r.resource_type == k_resource_client_metrics) &&
            !(on_topic || on_group
                  ? ctx.authorize(security::acl_operation::describe_configs,
                                  on_topic ? security::resource_type::topic : security::resource_type::group,
                                  r.resource_name)
                  : ctx.authorize_cluster(security::acl_operation::describe_configs))) {
            auto& out = denied.emplace_back();
            const auto e = on_topic   ? error_code::topic_authorization_failed
                           : on_group ? error_code::group_authorization_failed
                                      : error_code::cluster_authorization_failed;
            out.error_code = code(e);
            out.error_message = std::string(error_message(e));
            out.resource_type = r.resource_type;
            out.resource_name = r.resource_name;
            continue;
        }
        auto& out = resp.results.emplace_back();
        out.resource_type = r.resource_type;
        out.resource_name = r.resource_name;
        out.error_message = "";
        if (r.resource_type == k_resource_topic) {
            if (auto bad = check_topic_name(ctx.broker, r.resource_name)) {
                out.error_code = code(error_code::invalid_topic_exception);
                out.error_message = *bad;
                continue;
            }
            auto t = b.topics.by_name(r.resource_name);
            if (!t) {
                out.error_code = code(error_code::unknown_topic_or_partition);
                continue;
            }
            add_entries(out, meta::describe_topic_configs(t->configs, b.topics.defaults()), req, r);
        } else if (r.resource_type == k_resource_broker || r.resource_type == k_resource_broker_logger) {
            auto entries = describe_broker_resource(b, r.resource_type == k_resource_broker_logger, r.resource_name);
            if (!entries.ok()) {
                out.error_code = code(entries.error().code);
                out.error_message = entries.error().message;
                continue;
            }
            add_entries(out, *entries, req, r);
        } else if (r.resource_type == k_resource_group || r.resource_type == k_resource_client_metrics) {
            auto entries = r.resource_type == k_resource_group ? describe_group_resource(b, r.resource_name)
                                                               : describe_client_metrics_resource(b, r.resource_name);
            if (!entries.ok()) {
                out.error_code = code(entries.error().code);
                out.error_message = entries.error().message;
                continue;
            }
            add_entries(out, *entries, req, r);
        } else {
            auto e = unsupported_describe_resource();
            out.error_code = code(e.code);
            out.error_message = e.message;
        }
    }
    for (auto& d : denied) resp.results.push_back(std::move(d));
    co_return resp;
}

// DescribeConfigsRequest.getErrorResponse: each resource with the error and
// the code's message.
std::optional<describe_configs_response> describe_configs_error(const describe_configs_request& req, int16_t,
                                                                const error_answer& e) {
    describe_configs_response resp;
    for (auto& res : req.resources) {
        auto& rr = error_row(resp.results, e);
        rr.error_message = e.code_message;
        rr.resource_type = res.resource_type;
        rr.resource_name = res.resource_name;
    }
    return resp;
}

}  // namespace ketch::broker
