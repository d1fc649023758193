#include "console/tenant_purge.h"

#include <algorithm>
#include <map>

#include "console/kafka_facts.h"
#include "console/reply.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "tenant/names.h"

namespace ketch::console {

namespace {

bool owned(const std::string& tenant, const std::string& internal) { return tenant::owner_of(internal) == tenant; }

// A user of the tenant (never a super user): "T~u", bound to T, or named T.
bool users_tenant(const context& ctx, const std::string& user, const std::string& t) {
    return !ctx.tenants->users().is_super_user("User:" + user) && ctx.tenants->users().tenant_of_user(user) == t;
}

int64_t delete_topics(const context& ctx, const std::string& who, const std::string& t) {
    kafka::delete_topics_request q;
    q.timeout_ms = 30000;
    for (auto& m : describe_topics(ctx, who))
        if (!m.internal && owned(t, m.name)) {
            q.topic_names.push_back(m.name);
            q.topics.emplace_back().name = m.name;
        }
    if (q.topic_names.empty()) return 0;
    auto r = ctx.kafka->call<kafka::delete_topics_request, kafka::delete_topics_response>(q, who);
    int64_t n = 0;
    for (auto& x : r.responses) n += x.error_code == 0;
    return n;
}

// The live members of `groups`, removed as an administrator removes them
// (Admin.removeMembersFromConsumerGroup: LeaveGroup v3+ naming each member;
// Kafka 4.3.1 removes a consumer-protocol member so too, group/migration.cc).
void remove_members(const context& ctx, const std::string& who, const std::vector<std::string>& groups) {
    using member = kafka::leave_group_request::member_identity;
    std::map<std::string, std::vector<member>> members;
    kafka::describe_groups_request d;
    d.groups = groups;
    auto classic = ctx.kafka->call<kafka::describe_groups_request, kafka::describe_groups_response>(d, who);
    for (auto& g : classic.groups)
        if (g.error_code == 0)
            for (auto& m : g.members)
                members[g.group_id].push_back({m.member_id, m.group_instance_id, "tenant deleted"});
    kafka::consumer_group_describe_request c;
    c.group_ids = groups;
    auto consumer =
        ctx.kafka->call<kafka::consumer_group_describe_request, kafka::consumer_group_describe_response>(c, who);
    for (auto& g : consumer.groups)
        if (g.error_code == 0)
            for (auto& m : g.members) members[g.group_id].push_back({m.member_id, m.instance_id, "tenant deleted"});
    for (auto& [id, ms] : members) {
        kafka::leave_group_request l;
        l.group_id = id;
        l.members = std::move(ms);
        ctx.kafka->call<kafka::leave_group_request, kafka::leave_group_response>(l, who);
    }
}

// The tenant's groups and their offsets; a group with live members (its
// connections closed already) loses them first. {deleted, left}.
std::pair<int64_t, int64_t> delete_groups(const context& ctx, const std::string& who, const std::string& t) {
    kafka::list_groups_request l;
    auto groups = ctx.kafka->call<kafka::list_groups_request, kafka::list_groups_response>(l, who);
    kafka::delete_groups_request q;
    for (auto& g : groups.groups)
        if (owned(t, g.group_id)) q.groups_names.push_back(g.group_id);
    int64_t done = 0;
    for (int round = 0; round < 2 && !q.groups_names.empty(); ++round) {
        if (round == 1) remove_members(ctx, who, q.groups_names);
        auto r = ctx.kafka->call<kafka::delete_groups_request, kafka::delete_groups_response>(q, who);
        q.groups_names.clear();
        for (auto& x : r.results) {
            if (x.error_code == 0)
                ++done;
            else
                q.groups_names.push_back(x.group_id);
        }
    }
    return {done, int64_t(q.groups_names.size())};
}

// The ACLs on the tenant's topics, groups and transactional ids (types 2, 3,
// 5) and its CLUSTER resource, and those whose principal is one of its users.
int64_t delete_acls(const context& ctx, const std::string& who, const std::string& t) {
    auto acls = describe_all_acls(ctx, who);
    if (acls.error_code != 0) return 0;  // no authorizer: no ACLs
    kafka::delete_acls_request q;
    for (auto& res : acls.resources) {
        const bool scoped = res.resource_type == 2 || res.resource_type == 3 || res.resource_type == 5 ||
                            (res.resource_type == 4 && res.resource_name == t + "~kafka-cluster");
        for (auto& a : res.acls) {
            const std::string user = a.principal.starts_with("User:") ? a.principal.substr(5) : "";
            const bool mine = (scoped && owned(t, res.resource_name)) ||
                              (!user.empty() && ctx.tenants->users().tenant_of_user(user) == t);
            if (!mine) continue;
            auto& f = q.filters.emplace_back();
            f.resource_type_filter = res.resource_type;
            f.resource_name_filter = res.resource_name;
            f.pattern_type_filter = res.pattern_type;
            f.principal_filter = a.principal;
            f.host_filter = a.host;
            f.operation = a.operation;
            f.permission_type = a.permission_type;
        }
    }
    if (q.filters.empty()) return 0;
    auto r = ctx.kafka->call<kafka::delete_acls_request, kafka::delete_acls_response>(q, who);
    int64_t n = 0;
    for (auto& x : r.filter_results) n += int64_t(x.matching_acls.size());
    return n;
}

// A user may be named once per AlterUserScramCredentials request (Kafka
// answers DUPLICATE_RESOURCE to every change of a user named twice:
// ScramControlManager.alterCredentials), so a user with both SCRAM
// mechanisms loses them in two requests: round i deletes every user's i-th.
int64_t delete_users(const context& ctx, const std::string& who, const std::string& t) {
    kafka::describe_user_scram_credentials_request d;
    d.users.reset();
    auto users = ctx.kafka->call<kafka::describe_user_scram_credentials_request,
                                 kafka::describe_user_scram_credentials_response>(d, who);
    std::vector<kafka::alter_user_scram_credentials_request> rounds;
    int64_t n = 0;
    for (auto& u : users.results) {
        if (!users_tenant(ctx, u.user, t)) continue;
        ++n;
        for (size_t i = 0; i < u.credential_infos.size(); ++i) {
            if (rounds.size() <= i) rounds.emplace_back();
            auto& del = rounds[i].deletions.emplace_back();
            del.name = u.user;
            del.mechanism = u.credential_infos[i].mechanism;
        }
    }
    for (auto& q : rounds)
        ctx.kafka->call<kafka::alter_user_scram_credentials_request, kafka::alter_user_scram_credentials_response>(q,
                                                                                                                   who);
    return n;
}

// The client quotas whose entity names one of the tenant's users (with a
// client id or not); every quota of such an entity is removed.
int64_t delete_quotas(const context& ctx, const std::string& who, const std::string& t) {
    kafka::describe_client_quotas_request d;
    d.strict = false;
    auto quotas =
        ctx.kafka->call<kafka::describe_client_quotas_request, kafka::describe_client_quotas_response>(d, who);
    kafka::alter_client_quotas_request q;
    if (quotas.error_code != 0 || !quotas.entries) return 0;
    for (auto& e : *quotas.entries) {
        bool mine = false;
        for (auto& x : e.entity)
            if (x.entity_type == "user" && x.entity_name && users_tenant(ctx, *x.entity_name, t)) mine = true;
        if (!mine) continue;
        auto& entry = q.entries.emplace_back();
        for (auto& x : e.entity) {
            auto& ent = entry.entity.emplace_back();
            ent.entity_type = x.entity_type;
            ent.entity_name = x.entity_name;
        }
        for (auto& v : e.values) {
            auto& op = entry.ops.emplace_back();
            op.key = v.key;
            op.remove = true;
        }
    }
    if (q.entries.empty()) return 0;
    auto r = ctx.kafka->call<kafka::alter_client_quotas_request, kafka::alter_client_quotas_response>(q, who);
    int64_t n = 0;
    for (auto& x : r.entries) n += x.error_code == 0;
    return n;
}

// The delegation tokens owned by the tenant's users, through the token
// manager: Kafka's ExpireDelegationToken is the owner's or a renewer's only.
int64_t delete_tokens(const context& ctx, const std::string& t) {
    if (!ctx.tokens) return 0;
    return int64_t(ctx.tokens
                       ->remove_owned([&](const std::string& owner) {
                           auto [type, name] = security::split_principal(owner);
                           return type == "User" && users_tenant(ctx, name, t);
                       })
                       .removed);
}

}  // namespace

nlohmann::json purge_coordinated(const context& ctx, const std::string& who, const std::string& t) {
    txn_purge txns;
    if (ctx.purge_transactions) txns = ctx.purge_transactions([&](const std::string& id) { return owned(t, id); });
    auto [groups, groups_left] = delete_groups(ctx, who, t);
    return {{"groups", groups},
            {"groups_left", groups_left},
            {"transactional_ids", txns.removed},
            {"transactions_aborted", txns.aborted},
            {"transactional_ids_left", txns.left}};
}

nlohmann::json purge_tenant(const context& ctx, const std::string& who, const std::string& t) {
    // Its connections close at their next request (broker/tenant_scoping.cc),
    // those logged in with a token too, and its own users' credentials go
    // first, so that they do not come back; then its transactions end before
    // its groups (their live members removed) and topics go. In cluster mode
    // every other broker does the same for the connections, transactional ids
    // and groups it holds, and the topics go once PostgreSQL holds none.
    auto& usage = ctx.tenants->usage_of(t);
    usage.deletions.fetch_add(1, std::memory_order_acq_rel);
    const int64_t tokens = delete_tokens(ctx, t);
    const int64_t users = delete_users(ctx, who, t);
    const bool cluster = ctx.cluster_purge.announce && ctx.cluster_purge.settle;
    tenant_leftovers before;
    if (cluster) before = ctx.cluster_purge.announce(t);
    nlohmann::json out = purge_coordinated(ctx, who, t);
    if (cluster) {
        auto left = ctx.cluster_purge.settle(t);
        out["groups"] = std::max<int64_t>(before.groups - left.groups, out["groups"].get<int64_t>());
        out["groups_left"] = left.groups;
        out["transactional_ids"] = std::max<int64_t>(before.transactional_ids - left.transactional_ids,
                                                     out["transactional_ids"].get<int64_t>());
        out["transactional_ids_left"] = left.transactional_ids;
    }
    out["topics"] = delete_topics(ctx, who, t);
    out["acls"] = delete_acls(ctx, who, t);
    out["client_quotas"] = delete_quotas(ctx, who, t);
    out["users"] = users;
    out["delegation_tokens"] = tokens;
    usage.deletions.fetch_add(1, std::memory_order_acq_rel);  // and those made meanwhile
    return out;
}

nlohmann::json tenant_footprint(const context& ctx, const std::string& who, const std::string& t) {
    int64_t topics = 0, partitions = 0, bytes = 0;
    for (auto& m : describe_topics(ctx, who))
        if (!m.internal && owned(t, m.name)) {
            ++topics;
            partitions += int64_t(m.partitions.size());
        }
    for (auto& [tp, size] : partition_sizes(ctx, who))
        if (owned(t, tp.first)) bytes += size;
    return {{"topics", topics}, {"partitions", partitions}, {"storage_bytes", bytes}};
}

}  // namespace ketch::console
