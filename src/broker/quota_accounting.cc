#include "broker/quota_accounting.h"

#include <algorithm>

#include "base/clock.h"
#include "broker/broker_context.h"
#include "tenant/catalog.h"

namespace ketch::broker {

std::string quota_user(const net::connection_info& conn) {
    const std::string& p = conn.principal;
    auto colon = p.find(':');
    return colon == std::string::npos ? p : p.substr(colon + 1);
}

namespace {

// --tenancy with the catalog: the tenant's rate limits ("user" = the tenant).
security::quota_manager* tenant_rates(request_context& ctx) {
    return ctx.tenant && ctx.broker.tenant_catalog ? &ctx.broker.tenant_catalog->rates() : nullptr;
}

// A client quota's throttle: the broker's count, and the tenant's (the
// principal's tenant: ketch_tenant_quota_throttled_total).
void count_client_throttle(request_context& ctx, security::quota_type type) {
    ctx.broker.quotas->count_throttled(type);
    if (ctx.tenant_usage) [[unlikely]]
        ctx.tenant_usage->quota_throttle(size_t(type));
}

// Cluster mode: this broker's part of the tenant's byte rate (the limit less
// the other brokers' use, tenant/cluster_usage.h); nullopt: the whole limit.
std::optional<double> cluster_share(request_context& ctx, security::quota_manager& rates, security::quota_type type) {
    const auto* others = ctx.broker.tenant_catalog->others();
    if (!others || (type != security::quota_type::produce && type != security::quota_type::fetch)) return std::nullopt;
    auto bound = rates.limit(type, ctx.tenant->tenant(), "");
    if (!bound) return std::nullopt;
    return others->rate_share(ctx.tenant->tenant(), type == security::quota_type::produce, *bound);
}

int32_t record_tenant(request_context& ctx, security::quota_type type, double value, int64_t now) {
    auto* rates = tenant_rates(ctx);
    if (!rates || !rates->enforced(type)) return 0;
    int32_t t = rates->record(type, ctx.tenant->tenant(), "", value, now, cluster_share(ctx, *rates, type));
    if (t > 0 && ctx.tenant_usage) ctx.tenant_usage->throttle(tenant::rate(int(type)));
    return t;
}

}  // namespace

int32_t record_quota(request_context& ctx, security::quota_type type, double value) {
    const int64_t now = steady_ms();
    int32_t t = 0;
    if (ctx.broker.quotas) {
        t = ctx.broker.quotas->record(type, quota_user(ctx.conn), ctx.client_id.value_or(""), value, now);
        if (t > 0) count_client_throttle(ctx, type);
    }
    if (ctx.tenant) [[unlikely]]
        t = std::max(t, record_tenant(ctx, type, value, now));
    ctx.throttle_ms = std::max(ctx.throttle_ms, t);
    return t;
}

void unrecord_quota(request_context& ctx, security::quota_type type, double value) {
    if (ctx.broker.quotas)
        ctx.broker.quotas->unrecord(type, quota_user(ctx.conn), ctx.client_id.value_or(""), value, steady_ms());
    if (auto* rates = tenant_rates(ctx); rates && rates->enforced(type))
        rates->unrecord(type, ctx.tenant->tenant(), "", value, steady_ms());
}

std::optional<double> quota_window_bytes(request_context& ctx, security::quota_type type) {
    std::optional<double> w;
    if (ctx.broker.quotas)
        w = ctx.broker.quotas->max_value_in_window(type, quota_user(ctx.conn), ctx.client_id.value_or(""));
    if (auto* rates = tenant_rates(ctx); rates && rates->enforced(type))
        if (auto tw = rates->max_value_in_window(type, ctx.tenant->tenant(), "", cluster_share(ctx, *rates, type)))
            w = w ? std::min(*w, *tw) : *tw;
    return w;
}

void record_request_time(request_context& ctx, int64_t handler_ns, bool during_login) {
    if (ctx.no_response || during_login) return;
    const bool client = ctx.broker.quotas && ctx.broker.quotas->enforced(security::quota_type::request);
    auto* rates = tenant_rates(ctx);
    if (!client && !(rates && rates->enforced(security::quota_type::request))) return;  // the common case
    // nanosToPercentage: 100 % of one thread for one second is 100 per second.
    record_quota(ctx, security::quota_type::request, double(handler_ns) * 100.0 / 1e9);
}

security::mutation_quota mutation_quota_for(request_context& ctx, int16_t strict_since) {
    return security::mutation_quota(ctx.broker.quotas, quota_user(ctx.conn), ctx.client_id.value_or(""),
                                    ctx.api_version >= strict_since);
}

bool charge_mutation(security::mutation_quota& q, int32_t partitions) { return q.charge(partitions, steady_ms()); }

void finish_mutations(request_context& ctx, const security::mutation_quota& q) {
    const int32_t t = q.throttle_ms(steady_ms());
    if (t > 0 && ctx.broker.quotas) count_client_throttle(ctx, security::quota_type::controller_mutation);
    ctx.throttle_ms = std::max(ctx.throttle_ms, t);
}

}  // namespace ketch::broker
