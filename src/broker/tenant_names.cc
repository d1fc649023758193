// The hand-written half of tenant_names.h: the names Kafka's schemas do not
// mark (config and ACL resources, coordinator keys, topic regexes), and the
// table that classifies every served API.
#include "broker/tenant_names.h"

#include <algorithm>

#include "broker/broker_context.h"
#include "meta/topic_name.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// ConfigResource.Type and ResourceType codes.
constexpr int8_t config_topic = 2, config_group = 32;

bool config_scoped(int8_t type) { return type == config_topic || type == config_group; }

error_answer refused(const char* what) {
    return error_answer{int16_t(31), std::string(what), "Cluster authorization failed."};
}

template <class Resources>
void configs_in(const tenant::scope& s, Resources& resources) {
    for (auto& r : resources)
        if (config_scoped(r.resource_type)) r.resource_name = s.to_internal(r.resource_name);
}

template <class Rows>
void configs_out(const tenant::scope& s, Rows& rows) {
    std::erase_if(rows, [&](const auto& r) { return config_scoped(r.resource_type) && !s.owns(r.resource_name); });
    for (auto& r : rows)
        if (config_scoped(r.resource_type)) r.resource_name = *s.to_local(r.resource_name);
}

template <class Req>
std::optional<error_answer> alter_refusal(const Req& req) {
    for (auto& r : req.resources)
        if (!config_scoped(r.resource_type))
            return refused("A tenant alters the configs of its own topics and groups only");
    return std::nullopt;
}

// A regex over a tenant's local topic names, as one over internal names
// (RE2 full match): the tenant's prefix, its dots escaped, then the client's pattern.
std::string regex_prefix(const tenant::scope& s) {
    std::string out;
    for (char c : s.to_internal("")) {  // [A-Za-z0-9._-] and '~': only '.' is special
        if (c == '.') out += '\\';
        out += c;
    }
    return out + "(?:";
}

}  // namespace

topic_name_of tenant_topic_names(const broker_context& b) {
    return [&topics = b.topics](const uuid& id) -> std::optional<std::string> {
        auto t = topics.find(id);
        return t ? std::optional<std::string>(t->t.name) : std::nullopt;
    };
}

std::optional<std::string> check_topic_name(const broker_context& b, std::string_view name) {
    return meta::validate_topic_name(b.tenants ? meta::tenant_local_part(name) : name);
}

std::optional<tenant_policy> tenant_policy_of(int16_t api_key) {
    using p = tenant_policy;
    switch (api_key) {
        // Names only in marked fields.
        case 0:
        case 1:
        case 2:
        case 3:
        case 8:
        case 9:
        case 11:
        case 12:
        case 13:
        case 14:
        case 15:
        case 16:
        case 17:
        case 18:
        case 19:
        case 20:
        case 21:
        case 22:
        case 23:
        case 24:
        case 25:
        case 26:
        case 28:
        case 35:
        case 36:
        case 37:
        case 42:
        case 47:
        case 60:
        case 61:
        case 65:
        case 69:
        case 71:
        case 72:
        case 76:
        case 77:
        case 78:
        case 79:
        case 90:
        case 91:
        case 92: return p::names;
        // Unmarked names: tenant_names.cc.
        case 10:
        case 29:
        case 30:
        case 31:
        case 32:
        case 33:
        case 44:
        case 50:  // a tenant admin's SCRAM users: tenant_admin.cc
        case 51:
        case 66:
        case 68:
        case 74:
        case 75: return p::custom;
        // The cluster's own administration: replicas and log dirs, leaders,
        // reassignments, quotas, delegation tokens, the quorum, features.
        case 34:
        case 38:
        case 39:
        case 40:
        case 41:
        case 43:
        case 45:
        case 46:
        case 48:
        case 49:
        case 55:
        case 57:
        // Streams groups (KIP-1071): their topologies' source topic regexes
        // are not mapped yet, so they are refused to tenants for now.
        case 88:
        case 89: return p::operator_only;
        default: return std::nullopt;
    }
}

std::optional<error_answer> tenant_refusal(const tenant::scope&, const alter_configs_request& r, int16_t) {
    return alter_refusal(r);
}
std::optional<error_answer> tenant_refusal(const tenant::scope&, const incremental_alter_configs_request& r, int16_t) {
    return alter_refusal(r);
}
void tenant_custom_in(const tenant::scope& s, find_coordinator_request& r, int16_t) {
    // Every key type (group, transaction, share "group:topicId:partition")
    // starts with the group or transactional id.
    r.key = s.to_internal(r.key);
    for (auto& k : r.coordinator_keys) k = s.to_internal(k);
}
void tenant_custom_out(const tenant::scope& s, find_coordinator_response& r, int16_t) {
    for (auto& c : r.coordinators) {
        auto l = s.to_local(c.key);
        c.key = l ? std::move(*l) : std::string();
    }
}

void tenant_custom_in(const tenant::scope& s, describe_configs_request& r, int16_t) { configs_in(s, r.resources); }
void tenant_custom_out(const tenant::scope& s, describe_configs_response& r, int16_t) { configs_out(s, r.results); }
void tenant_custom_in(const tenant::scope& s, alter_configs_request& r, int16_t) { configs_in(s, r.resources); }
void tenant_custom_out(const tenant::scope& s, alter_configs_response& r, int16_t) { configs_out(s, r.responses); }
void tenant_custom_in(const tenant::scope& s, incremental_alter_configs_request& r, int16_t) {
    configs_in(s, r.resources);
}
void tenant_custom_out(const tenant::scope& s, incremental_alter_configs_response& r, int16_t) {
    configs_out(s, r.responses);
}

void tenant_custom_out(const tenant::scope& s, list_config_resources_response& r, int16_t) {
    // Client metrics subscriptions are the cluster's: not a tenant's to see.
    std::erase_if(r.config_resources, [&](const auto& c) {
        return config_scoped(c.resource_type) ? !s.owns(c.resource_name) : c.resource_type == 16;
    });
    for (auto& c : r.config_resources)
        if (config_scoped(c.resource_type)) c.resource_name = *s.to_local(c.resource_name);
}

void tenant_custom_in(const tenant::scope& s, list_transactions_request& r, int16_t) {
    // v2's pattern (KIP-1152, a whole-id RE2 match) over the tenant's own ids.
    auto& p = r.transactional_id_pattern;
    if (p && !p->empty() && !s.is_default()) p = regex_prefix(s) + *p + ")";
}

void tenant_custom_out(const tenant::scope& s, describe_topic_partitions_response& r, int16_t) {
    // Pages run in name order: past the tenant's names there are no more of its own.
    if (r.next_cursor && !s.owns(r.next_cursor->topic_name)) r.next_cursor.reset();
}

void tenant_custom_in(const tenant::scope& s, consumer_group_heartbeat_request& r, int16_t) {
    if (r.subscribed_topic_regex && !r.subscribed_topic_regex->empty() && !s.is_default())
        r.subscribed_topic_regex = regex_prefix(s) + *r.subscribed_topic_regex + ")";
}
void tenant_custom_out(const tenant::scope& s, consumer_group_describe_response& r, int16_t) {
    if (s.is_default()) return;
    const std::string pre = regex_prefix(s);
    for (auto& g : r.groups)
        for (auto& m : g.members) {
            auto& re = m.subscribed_topic_regex;
            if (re && re->starts_with(pre) && re->ends_with(")"))
                re = re->substr(pre.size(), re->size() - pre.size() - 1);
            else if (re)
                re.reset();  // not one this tenant wrote
        }
}

}  // namespace ketch::broker
