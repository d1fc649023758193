// Tenancy at the edge of every API (docs/design/tenancy.md): a scoped
// request's names are mapped to the tenant's internal names after decoding,
// and the response's back after the handler, by the generated entity
// visitor (protocol/messages/api_entities.h: every field Kafka marks as a
// topic name, group id or transactional id, and every TopicId) plus a few
// hand-written rules for the names Kafka does not mark (ACL and config
// resources, coordinator keys, topic regexes). The handlers see internal
// names only and know nothing of tenants.
//
// Each served API is classified in one table (tenant_policy_of): an API
// missing from it is refused to tenants, and unit_broker's leak test fails.
#pragma once

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include <functional>
#include <string>
#include "base/uuid.h"
#include "broker/error_answer.h"

#include "protocol/messages/api_entities.h"
#include "tenant/names.h"

namespace ketch::broker {

enum class tenant_policy {
    names,          // every name is a marked field: the generated visitor maps all of them
    custom,         // the visitor and the rules of tenant_names.cc
    operator_only,  // cluster administration: refused to a tenant (CLUSTER_AUTHORIZATION_FAILED)
};
// nullopt: not classified (refused to tenants, and a failing test).
std::optional<tenant_policy> tenant_policy_of(int16_t api_key);

struct broker_context;

// Kafka's topic name rule for a name a handler was given: under --tenancy of
// the internal name's local part (`T~L`: L), else of the name itself.
std::optional<std::string> check_topic_name(const broker_context& b, std::string_view name);

// The topic ids a request named: another tenant's are replaced by fresh
// random ids going in (the handler answers UNKNOWN_TOPIC_ID), the client's
// own put back in the response; the tenant's own are remembered so that the
// response's rows of them are kept without looking them up again (a topic's
// id never changes owner).
struct replaced_ids {
    std::vector<std::pair<uuid, uuid>> replaced;  // (stand-in, original)
    std::vector<uuid> own;                        // the tenant's own topics' ids
    bool is_own(const uuid& id) const { return std::find(own.begin(), own.end(), id) != own.end(); }
    bool is_stand_in(const uuid& id) const {
        for (auto& r : replaced)
            if (r.first == id) return true;
        return false;
    }
};
// The internal name of the topic with this id; nullopt: none.
using topic_name_of = std::function<std::optional<std::string>(const uuid&)>;
// The broker's topic registry as a topic_name_of.
topic_name_of tenant_topic_names(const broker_context& b);

// Both visitors change names in place (tenant::scope::to_internal_in_place,
// to_local_in_place): a Produce or Fetch of a tenant allocates no string for
// its names beyond what growing a name by the prefix needs.
struct tenant_in_visitor {
    const tenant::scope& s;
    const topic_name_of& topics;
    replaced_ids& ids;
    // An empty name is no name (a topic by id; a missing group id): left as
    // it is, so the handler answers it as without tenancy.
    void name(kafka::entity, std::string& n) {
        if (!n.empty()) s.to_internal_in_place(n);
    }
    void topic_id(uuid& id) {
        if (id.is_zero() || ids.is_own(id)) return;
        auto t = topics(id);
        if (!t) return;
        if (s.owns(*t)) {
            ids.own.push_back(id);
            return;
        }
        ids.replaced.emplace_back(uuid::random(), id);
        id = ids.replaced.back().first;
    }
    void message(std::string&) {}
    bool keep(kafka::entity, const std::string&) { return true; }
    bool keep_id(const uuid&) { return true; }
};

struct tenant_out_visitor {
    const tenant::scope& s;
    const topic_name_of& topics;
    const replaced_ids& ids;
    void name(kafka::entity, std::string& n) {
        if (!n.empty() && !s.to_local_in_place(n)) n.clear();  // never reached after keep(): the leak test checks
    }
    void topic_id(uuid& id) {
        for (auto& [stand_in, original] : ids.replaced)
            if (id == stand_in) id = original;
    }
    void message(std::string& m) {
        if (!s.is_default() && m.find(tenant::separator) != std::string::npos) m = s.localize_text(m);
    }
    bool keep(kafka::entity, const std::string& n) { return n.empty() || s.owns(n); }
    bool keep_id(const uuid& id) {
        if (id.is_zero() || ids.is_own(id) || ids.is_stand_in(id)) return true;
        auto t = topics(id);
        return !t || s.owns(*t);
    }
};

// The hand-written rules: a refusal (checked before anything is mapped), the
// way in and the way out. The catch-alls do nothing.
template <class M>
std::optional<error_answer> tenant_refusal(const tenant::scope&, const M&, int16_t) {
    return std::nullopt;
}
template <class M>
void tenant_custom_in(const tenant::scope&, M&, int16_t) {}
template <class M>
void tenant_custom_out(const tenant::scope&, M&, int16_t) {}

std::optional<error_answer> tenant_refusal(const tenant::scope&, const kafka::alter_configs_request&, int16_t);
std::optional<error_answer> tenant_refusal(const tenant::scope&, const kafka::incremental_alter_configs_request&,
                                           int16_t);
std::optional<error_answer> tenant_refusal(const tenant::scope&, const kafka::create_acls_request&, int16_t);
std::optional<error_answer> tenant_refusal(const tenant::scope&, const kafka::delete_acls_request&, int16_t);
std::optional<error_answer> tenant_refusal(const tenant::scope&, const kafka::alter_user_scram_credentials_request&,
                                           int16_t);

void tenant_custom_in(const tenant::scope&, kafka::find_coordinator_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::find_coordinator_response&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::describe_configs_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::describe_configs_response&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::alter_configs_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::alter_configs_response&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::incremental_alter_configs_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::incremental_alter_configs_response&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::create_acls_request&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::delete_acls_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::delete_acls_response&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::describe_acls_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::describe_acls_response&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::list_config_resources_response&, int16_t);
// A tenant admin's SCRAM users (tenant_admin.cc, with the ACL rules).
void tenant_custom_in(const tenant::scope&, kafka::alter_user_scram_credentials_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::alter_user_scram_credentials_response&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::describe_user_scram_credentials_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::describe_user_scram_credentials_response&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::consumer_group_heartbeat_request&, int16_t);
void tenant_custom_in(const tenant::scope&, kafka::list_transactions_request&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::consumer_group_describe_response&, int16_t);
void tenant_custom_out(const tenant::scope&, kafka::describe_topic_partitions_response&, int16_t);

// The refusal of `req` for this tenant, if any: an operator-only or
// unclassified API, or a hand-written rule.
template <class Req>
std::optional<error_answer> tenant_admit(const tenant::scope& s, const Req& req, int16_t version) {
    auto policy = tenant_policy_of(Req::api_key);
    if (!policy || *policy == tenant_policy::operator_only)
        return error_answer{int16_t(31), "Cluster administration is not available to a tenant",
                            "Cluster authorization failed."};
    return tenant_refusal(s, req, version);
}

template <class Req>
void tenant_map_in(const tenant::scope& s, const topic_name_of& topics, Req& req, int16_t version, replaced_ids& ids) {
    tenant_custom_in(s, req, version);
    tenant_in_visitor v{s, topics, ids};
    kafka::visit_entities(req, version, v);
}

template <class Resp>
void tenant_map_out(const tenant::scope& s, const topic_name_of& topics, Resp& resp, int16_t version,
                    const replaced_ids& ids) {
    tenant_custom_out(s, resp, version);
    tenant_out_visitor v{s, topics, ids};
    kafka::visit_entities(resp, version, v);
}

}  // namespace ketch::broker
