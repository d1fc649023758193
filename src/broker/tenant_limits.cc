#include "broker/tenant_limits.h"
#include "broker/tenant_topics.h"

#include <map>

#include "broker/broker_context.h"
#include "broker/tenant_storage_totals.h"
#include "meta/topic_registry.h"
#include "partition/service.h"
#include "tenant/catalog.h"

namespace ketch::broker {

namespace {

const int16_t k_policy_violation = code(error_code::policy_violation);

std::vector<meta::topic> topics_of(broker_context& b, const tenant::scope& s) {
    if (!s.is_default()) return b.topics.list_prefix(s.tenant() + tenant::separator);
    auto all = b.topics.list();
    std::erase_if(all, [&](const meta::topic& t) { return !s.owns(t.name); });
    return all;
}

// A limit of the request's tenant; nullopt: none (or no catalog).
std::optional<int64_t> limit_of(request_context& ctx, std::string_view key) {
    if (!ctx.broker.tenant_catalog || !ctx.tenant) return std::nullopt;
    return ctx.broker.tenant_catalog->limit(ctx.tenant->tenant(), key);
}

void count_refusal(request_context& ctx, tenant::refusal r) {
    if (ctx.tenant_usage) ctx.tenant_usage->refuse(r);
}

// Cluster mode: a Produce that passed max_storage_bytes counts its record bytes until the next read.
void count_passed(tenant_storage_totals& totals, const std::string& tenant, const kafka::produce_request& req) {
    int64_t n = 0;
    for (auto& t : req.topic_data)
        for (auto& p : t.partition_data)
            if (p.records) n += int64_t(p.records->size());
    totals.add(tenant, n);
}

std::string over(const request_context& ctx, const char* what, int64_t limit) {
    return "Tenant " + ctx.tenant->tenant() + " is limited to " + std::to_string(limit) + " " + what;
}

}  // namespace

std::vector<meta::topic> listed_topics(const request_context& ctx) {
    if (!ctx.tenant) return ctx.broker.topics.list();
    return topics_of(ctx.broker, *ctx.tenant);
}

std::string listed_group_prefix(const request_context& ctx) {
    if (!ctx.tenant || ctx.tenant->is_default()) return {};
    return ctx.tenant->tenant() + tenant::separator;
}

void count_tenant_request(request_context& ctx) {
    auto& u = *ctx.tenant_usage;
    u.add(u.requests);
    if (ctx.api_key == 0) u.add(u.bytes_in, ctx.request_bytes);
}

tenant_footprint footprint_of(broker_context& b, const tenant::scope& s) {
    tenant_footprint f;
    for (auto& t : topics_of(b, s)) {
        ++f.topics;
        f.partitions += t.partition_count;
    }
    return f;
}

int64_t storage_of(broker_context& b, const tenant::scope& s) {
    // Cluster mode: the tenant's bytes in the shared log (tenant_storage_totals.h).
    if (b.tenant_storage) return b.tenant_storage->bytes(s.tenant());
    // The running total (partition/storage_accounts.h), kept when the app set the accounts up.
    if (b.partitions.accounts().enabled()) return b.partitions.accounts().bytes(s.tenant());
    int64_t bytes = 0;
    for (auto& t : topics_of(b, s))
        for (int32_t p = 0; p < t.partition_count; ++p)
            if (auto store = b.partitions.find(t.name, p)) bytes += int64_t(store->size_bytes());
    return bytes;
}

std::optional<std::string> tenant_refuses_new_topic(broker_context& b, const std::string& internal,
                                                    int64_t partitions) {
    if (!b.tenant_catalog) return std::nullopt;
    const std::string owner(tenant::owner_of(internal));
    auto max_topics = b.tenant_catalog->limit(owner, "max_topics");
    auto max_partitions = b.tenant_catalog->limit(owner, "max_partitions");
    if (!max_topics && !max_partitions) return std::nullopt;
    auto now = footprint_of(b, tenant::scope(owner));
    tenant::refusal r;
    if (max_topics && now.topics + 1 > *max_topics)
        r = tenant::refusal::max_topics;
    else if (max_partitions && now.partitions + partitions > *max_partitions)
        r = tenant::refusal::max_partitions;
    else
        return std::nullopt;
    b.tenant_catalog->usage_of(owner).refuse(r);
    return "Tenant " + owner + " is at its " + std::string(tenant::refusal_names[size_t(r)]);
}

void tenant_limits_in(request_context& ctx, kafka::create_topics_request& req, tenant_held& held) {
    auto max_topics = limit_of(ctx, "max_topics"), max_partitions = limit_of(ctx, "max_partitions");
    if (!max_topics && !max_partitions) return;
    auto now = footprint_of(ctx.broker, *ctx.tenant);
    std::map<std::string, int> seen;
    for (auto& t : req.topics) ++seen[t.name];
    std::erase_if(req.topics, [&](const kafka::create_topics_request::creatable_topic& t) {
        // Duplicates and existing topics are the handler's to answer.
        if (seen[t.name] > 1 || ctx.broker.topics.find(std::string_view(t.name))) return false;
        const int64_t parts = !t.assignments.empty()   ? int64_t(t.assignments.size())
                              : t.num_partitions == -1 ? int64_t(ctx.broker.config.default_partitions)
                                                       : int64_t(t.num_partitions);
        std::string why;
        if (max_topics && now.topics + 1 > *max_topics) {
            why = over(ctx, "topics", *max_topics);
            count_refusal(ctx, tenant::refusal::max_topics);
        } else if (max_partitions && parts > 0 && now.partitions + parts > *max_partitions) {
            why = over(ctx, "partitions", *max_partitions) + " and has " + std::to_string(now.partitions);
            count_refusal(ctx, tenant::refusal::max_partitions);
        }
        if (why.empty()) {
            ++now.topics;
            now.partitions += std::max<int64_t>(parts, 0);
            return false;
        }
        held.rows.push_back({t.name, {}, {}, k_policy_violation, std::move(why)});
        return true;
    });
}

namespace {

// A held topic's row in `rows`: by name, with its error.
template <class Rows>
auto& held_topic_rows(Rows& rows, const tenant_held::row& h) {
    auto& r = rows.emplace_back();
    r.name = h.name;
    r.error_code = h.code;
    r.error_message = h.message;
    return r;
}

}  // namespace

void tenant_limits_out(request_context&, kafka::create_topics_response& resp, tenant_held& held) {
    for (auto& h : held.rows) {
        auto& r = held_topic_rows(resp.topics, h);
        r.num_partitions = -1;
        r.replication_factor = -1;
    }
}

void tenant_limits_in(request_context& ctx, kafka::create_partitions_request& req, tenant_held& held) {
    auto max_partitions = limit_of(ctx, "max_partitions");
    if (!max_partitions) return;
    auto now = footprint_of(ctx.broker, *ctx.tenant);
    std::erase_if(req.topics, [&](const kafka::create_partitions_request::create_partitions_topic& t) {
        auto topic = ctx.broker.topics.find(std::string_view(t.name));
        if (!topic || t.count <= topic->t.partition_count) return false;  // the handler's error
        const int64_t more = int64_t(t.count) - topic->t.partition_count;
        if (now.partitions + more <= *max_partitions) {
            now.partitions += more;
            return false;
        }
        count_refusal(ctx, tenant::refusal::max_partitions);
        held.rows.push_back({t.name,
                             {},
                             {},
                             k_policy_violation,
                             over(ctx, "partitions", *max_partitions) + " and has " + std::to_string(now.partitions)});
        return true;
    });
}

void tenant_limits_out(request_context&, kafka::create_partitions_response& resp, tenant_held& held) {
    for (auto& h : held.rows) held_topic_rows(resp.results, h);
}

void tenant_limits_in(request_context& ctx, kafka::produce_request& req, tenant_held& held) {
    auto max_bytes = limit_of(ctx, "max_storage_bytes");
    if (!max_bytes) return;
    const int64_t used = storage_of(ctx.broker, *ctx.tenant);
    if (used < *max_bytes) {
        if (ctx.broker.tenant_storage) count_passed(*ctx.broker.tenant_storage, ctx.tenant->tenant(), req);
        return;
    }
    count_refusal(ctx, tenant::refusal::max_storage_bytes);
    if (req.acks == 0) ctx.close_connection = true;  // no answer to carry the error: Kafka closes
    const std::string why = over(ctx, "bytes of storage", *max_bytes) + " and holds " + std::to_string(used);
    for (auto& t : req.topic_data) {
        auto& row = held.rows.emplace_back(tenant_held::row{t.name, t.topic_id, {}, k_policy_violation, why});
        for (auto& p : t.partition_data) row.partitions.push_back(p.index);
    }
    req.topic_data.clear();
}

void tenant_limits_out(request_context&, kafka::produce_response& resp, tenant_held& held) {
    for (auto& h : held.rows) {
        auto& r = resp.responses.emplace_back();
        r.name = h.name;
        r.topic_id = h.id;
        for (int32_t p : h.partitions) {
            auto& pr = r.partition_responses.emplace_back();
            pr.index = p;
            pr.error_code = h.code;
            pr.base_offset = -1;
            pr.log_append_time_ms = -1;
            pr.log_start_offset = -1;
            pr.error_message = h.message;
        }
    }
}

}  // namespace ketch::broker
