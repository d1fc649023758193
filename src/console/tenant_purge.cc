#include "console/tenant_purge.h"

#include "console/kafka_facts.h"
#include "console/reply.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/messages/list_groups.h"
#include "tenant/names.h"

namespace ketch::console {

namespace {

bool owned(const std::string& tenant, const std::string& internal) { return tenant::owner_of(internal) == tenant; }

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

std::pair<int64_t, int64_t> delete_groups(const context& ctx, const std::string& who, const std::string& t) {
    kafka::list_groups_request l;
    auto groups = ctx.kafka->call<kafka::list_groups_request, kafka::list_groups_response>(l, who);
    kafka::delete_groups_request q;
    for (auto& g : groups.groups)
        if (owned(t, g.group_id)) q.groups_names.push_back(g.group_id);
    if (q.groups_names.empty()) return {0, 0};
    auto r = ctx.kafka->call<kafka::delete_groups_request, kafka::delete_groups_response>(q, who);
    int64_t done = 0, left = 0;
    for (auto& x : r.results) (x.error_code == 0 ? done : left) += 1;
    return {done, left};
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

int64_t delete_users(const context& ctx, const std::string& who, const std::string& t) {
    kafka::describe_user_scram_credentials_request d;
    d.users.reset();
    auto users = ctx.kafka->call<kafka::describe_user_scram_credentials_request,
                                 kafka::describe_user_scram_credentials_response>(d, who);
    kafka::alter_user_scram_credentials_request q;
    int64_t n = 0;
    for (auto& u : users.results) {
        if (ctx.tenants->users().is_super_user("User:" + u.user) || ctx.tenants->users().tenant_of_user(u.user) != t)
            continue;
        ++n;
        for (auto& c : u.credential_infos) {
            auto& del = q.deletions.emplace_back();
            del.name = u.user;
            del.mechanism = c.mechanism;
        }
    }
    if (!q.deletions.empty())
        ctx.kafka->call<kafka::alter_user_scram_credentials_request, kafka::alter_user_scram_credentials_response>(q,
                                                                                                                   who);
    return n;
}

}  // namespace

nlohmann::json purge_tenant(const context& ctx, const std::string& who, const std::string& t) {
    auto [groups, groups_left] = delete_groups(ctx, who, t);
    const int64_t topics = delete_topics(ctx, who, t);
    const int64_t acls = delete_acls(ctx, who, t);
    const int64_t users = delete_users(ctx, who, t);
    return {{"topics", topics}, {"groups", groups}, {"groups_left", groups_left}, {"acls", acls}, {"users", users}};
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
