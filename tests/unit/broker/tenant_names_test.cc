// Tenancy's leak test (docs/design/tenancy.md): every API the broker serves
// (the registry ApiVersions answers from) is classified for tenants, and for
// every served API and version no response mapped out for one tenant holds
// another tenant's name, or any internal name at all; no request mapped in
// names anything but the tenant's own resources.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "broker/handlers/handlers.h"
#include "broker/tenant_names.h"
#include "protocol/messages/all_json.h"
#include "protocol/messages/api_visit.h"

namespace ketch::broker {
namespace {

using nlohmann::json;

// Plants names into every marked field: alternately the tenant's own
// internal names and another tenant's, and TopicIds of both.
struct planter {
    std::string own_prefix, other_prefix;
    uuid own_id, other_id;
    int n = 0;
    void name(kafka::entity, std::string& s) {
        const int k = n++;
        s = (k % 2 ? other_prefix : own_prefix) + "n" + std::to_string(k);
    }
    void topic_id(uuid& id) { id = n++ % 2 ? other_id : own_id; }
    void message(std::string& m) { m = "about " + own_prefix + "mine"; }
    bool keep(kafka::entity, const std::string&) { return true; }
    bool keep_id(const uuid&) { return true; }
};

// The same for the names Kafka does not mark (tenant_names.cc's rules), in
// the JSON form: resource names of configs and ACLs (on topics: type 2 in
// both enums), coordinator keys, topic regexes; and users (ACL principals,
// SCRAM users: "T~u", `own_user` the tenant's "T~").
void plant_json(json& j, const std::string& own, const std::string& other, int& n, const std::string& own_user = "") {
    if (j.is_array()) {
        for (auto& x : j) plant_json(x, own, other, n, own_user);
        return;
    }
    if (!j.is_object()) return;
    for (auto& [key, value] : j.items()) {
        if ((key == "principal" || key == "user") && value.is_string()) {
            const int k = n++;
            value =
                std::string(key == "principal" ? "User:" : "") + (k % 2 ? other : own_user) + "u" + std::to_string(k);
        } else if (key == "subscribed_topic_regex" && value.is_string()) {
            value = own + "r";  // a member's regex is its own tenant's, as its group is
        } else if ((key == "resource_name" || (key == "key" && j.contains("node_id"))) && value.is_string()) {
            const int k = n++;
            value = (k % 2 ? other : own) + "r" + std::to_string(k);
            if (j.contains("resource_type")) j["resource_type"] = 2;
        } else {
            plant_json(value, own, other, n, own_user);
        }
    }
}

bool has_separator(const json& j) {
    if (j.is_string()) return j.get<std::string>().find(tenant::separator) != std::string::npos;
    if (j.is_array() || j.is_object())
        for (auto& x : j)
            if (has_separator(x)) return true;
    return false;
}

struct fixture {
    tenant::scope scope;
    std::string other_prefix;
    uuid own_id = uuid::random(), other_id = uuid::random();
    topic_name_of names;
    explicit fixture(std::string tenant, std::string other) : scope(std::move(tenant)), other_prefix(std::move(other)) {
        names = [this](const uuid& id) -> std::optional<std::string> {
            if (id == own_id) return scope.to_internal("mine");
            if (id == other_id) return other_prefix + "theirs";
            return std::nullopt;
        };
    }
    std::string own_prefix() const { return scope.to_internal(""); }
};

template <class Resp>
void check_response(fixture& f, int16_t version, uint64_t seed) {
    const std::string where = std::string(Resp::message_name) + " v" + std::to_string(version);
    kafka::sample_rng rng(seed);
    Resp resp;
    fill_sample(resp, version, rng);
    int n = 0;
    json j = to_json(resp, version);
    plant_json(j, f.own_prefix(), f.other_prefix, n, f.scope.tenant() + "~");
    from_json(j, resp, version);
    planter p{f.own_prefix(), f.other_prefix, f.own_id, f.other_id};
    kafka::visit_entities(resp, version, p);
    tenant_map_out(f.scope, f.names, resp, version, {});
    const json out = to_json(resp, version);
    EXPECT_FALSE(has_separator(out)) << where << ": " << out.dump();
    EXPECT_EQ(out.dump().find("theirs"), std::string::npos) << where;
}

template <class Req>
void check_request(fixture& f, int16_t version, uint64_t seed) {
    const std::string where = std::string(Req::message_name) + " v" + std::to_string(version);
    kafka::sample_rng rng(seed);
    Req req;
    fill_sample(req, version, rng);
    int n = 0;
    json j = to_json(req, version);
    plant_json(j, f.other_prefix, f.other_prefix, n);  // a client naming another tenant's names
    from_json(j, req, version);
    planter p{f.other_prefix, f.other_prefix, f.other_id, f.other_id};
    kafka::visit_entities(req, version, p);
    if (tenant_admit(f.scope, req, version)) return;  // refused as a whole
    replaced_ids ids;
    tenant_map_in(f.scope, f.names, req, version, ids);
    struct check {
        fixture& f;
        const std::string& where;
        void name(kafka::entity, std::string& s) { EXPECT_TRUE(f.scope.owns(s)) << where << ": " << s; }
        void topic_id(uuid& id) { EXPECT_NE(id, f.other_id) << where; }
        void message(std::string&) {}
        bool keep(kafka::entity, const std::string&) { return true; }
        bool keep_id(const uuid&) { return true; }
    } c{f, where};
    kafka::visit_entities(req, version, c);
}

void for_every_served_version(const std::function<void(const handler_entry&, int16_t)>& fn) {
    for (const handler_entry& h : served_apis())
        for (int16_t v = h.min_version; v <= h.max_version; ++v) fn(h, v);
}

TEST(tenant_names, every_served_api_is_classified) {
    int served = 0;
    for (const handler_entry& h : served_apis()) {
        EXPECT_TRUE(tenant_policy_of(h.key).has_value())
            << "api key " << h.key << " is served but not classified for tenants (tenant_names.cc)";
        ++served;
    }
    EXPECT_GT(served, 60);
}

void check_all(const std::string& tenant, const std::string& other) {
    fixture f(tenant, other);
    for_every_served_version([&](const handler_entry& h, int16_t v) {
        if (tenant_policy_of(h.key) == tenant_policy::operator_only) return;  // never reaches a handler
        kafka::visit_api(h.key, [&]<class Req, class Resp>() {
            for (uint64_t seed = 1; seed <= 12; ++seed) {
                check_response<Resp>(f, v, seed * 7919 + uint64_t(v));
                check_request<Req>(f, v, seed * 104729 + uint64_t(v));
            }
        });
    });
}

TEST(tenant_names, no_response_shows_another_tenants_or_internal_names) { check_all("a", "b~"); }

TEST(tenant_names, the_default_tenant_sees_no_tenants_names) { check_all("default", "b~"); }

TEST(tenant_names, a_list_keeps_the_tenants_own_rows_under_their_own_names) {
    fixture f("a", "b~");
    kafka::list_groups_response resp;
    for (auto* id : {"a~orders", "b~orders", "orders", "~x~y", "a~x~y"}) resp.groups.emplace_back().group_id = id;
    tenant_map_out(f.scope, f.names, resp, 5, {});
    ASSERT_EQ(resp.groups.size(), 2u);
    EXPECT_EQ(resp.groups[0].group_id, "orders");
    EXPECT_EQ(resp.groups[1].group_id, "x~y");
}

TEST(tenant_names, another_tenants_topic_id_is_unknown_and_answered_as_asked) {
    fixture f("a", "b~");
    kafka::metadata_request req;
    req.topics.emplace().emplace_back().topic_id = f.other_id;
    replaced_ids ids;
    tenant_map_in(f.scope, f.names, req, 12, ids);
    const uuid seen = (*req.topics)[0].topic_id;
    EXPECT_NE(seen, f.other_id);
    EXPECT_FALSE(f.names(seen).has_value());
    kafka::metadata_response resp;
    auto& row = resp.topics.emplace_back();  // as the handler answers UNKNOWN_TOPIC_ID: no name
    row.topic_id = seen;
    row.name.reset();
    tenant_map_out(f.scope, f.names, resp, 12, ids);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].topic_id, f.other_id);
}

TEST(tenant_names, a_tenant_cannot_name_users_tokens_or_brokers_in_acls_and_configs) {
    tenant::scope a("a");
    kafka::create_acls_request acl;
    acl.creations.emplace_back().resource_type = 7;  // USER
    EXPECT_TRUE(tenant_admit(a, acl, 3).has_value());
    acl.creations[0].resource_type = 2;
    acl.creations[0].resource_name = "b~orders";  // another tenant's, by its internal name
    acl.creations[0].principal = "User:carol";
    EXPECT_FALSE(tenant_admit(a, acl, 3).has_value());
    replaced_ids ids;
    tenant_map_in(a, topic_name_of{}, acl, 3, ids);
    EXPECT_EQ(acl.creations[0].resource_name, "a~b~orders");
    EXPECT_EQ(acl.creations[0].principal, "User:a~carol");
    kafka::incremental_alter_configs_request cfg;
    cfg.resources.emplace_back().resource_type = 4;  // BROKER
    EXPECT_TRUE(tenant_admit(a, cfg, 1).has_value());
    kafka::delete_acls_request del;
    del.filters.emplace_back().resource_type_filter = 2;
    del.filters[0].resource_name_filter.reset();  // every topic ACL: refused
    EXPECT_TRUE(tenant_admit(a, del, 3).has_value());
}

TEST(tenant_names, operator_apis_are_refused_to_tenants) {
    tenant::scope a("a");
    kafka::describe_client_quotas_request q;
    auto refused = tenant_admit(a, q, 1);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->code, int16_t(error_code::cluster_authorization_failed));
}

TEST(tenant_names, regexes_over_names_match_the_tenants_own_names_only) {
    tenant::scope a("a.b");
    replaced_ids ids;
    kafka::list_transactions_request txns;
    txns.transactional_id_pattern = "etl.*";
    tenant_map_in(a, topic_name_of{}, txns, 2, ids);
    EXPECT_EQ(*txns.transactional_id_pattern, "a\\.b~(?:etl.*)");
    kafka::consumer_group_heartbeat_request hb;
    hb.subscribed_topic_regex = "orders\\..*";
    tenant_map_in(a, topic_name_of{}, hb, 1, ids);
    EXPECT_EQ(*hb.subscribed_topic_regex, "a\\.b~(?:orders\\..*)");
    kafka::consumer_group_describe_response d;
    d.groups.emplace_back().members.emplace_back().subscribed_topic_regex = *hb.subscribed_topic_regex;
    tenant_map_out(a, topic_name_of{}, d, 1, ids);
    EXPECT_EQ(*d.groups[0].members[0].subscribed_topic_regex, "orders\\..*");
}

}  // namespace
}  // namespace ketch::broker
