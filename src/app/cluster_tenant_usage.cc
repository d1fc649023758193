#include "app/cluster_tenant_usage.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "base/clock.h"
#include "tenant/catalog.h"

namespace ketch::app {

namespace {

// This broker's rows replaced in one transaction: the others see the old ones or the new ones.
constexpr const char* k_forget = "DELETE FROM ketch_tenant_usage WHERE node_id = $1";
constexpr const char* k_publish =
    "INSERT INTO ketch_tenant_usage (node_id, tenant, connections, produce_rate, fetch_rate) SELECT $1, u.t, u.c, "
    "u.p, u.f FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::float8[]) AS u(t, c, p, f)";
// The other live brokers' sums, from rows they wrote within the session timeout.
constexpr const char* k_others =
    "SELECT u.tenant, sum(u.connections), sum(u.produce_rate), sum(u.fetch_rate) FROM ketch_tenant_usage u JOIN "
    "ketch_brokers b ON b.node_id = u.node_id WHERE u.node_id <> $1 AND b.last_heartbeat > now() - $2::bigint * "
    "interval '1 millisecond' AND u.updated_at > now() - $2::bigint * interval '1 millisecond' GROUP BY u.tenant";
constexpr const char* k_live =
    "SELECT count(*) FROM ketch_brokers WHERE last_heartbeat > now() - $1::bigint * interval '1 millisecond'";

struct mine {
    std::vector<std::string> tenants, connections, produce, fetch;
};

// {"a","b"}: tenant names are [a-zA-Z0-9._-], numbers need no quotes.
std::string array_of(const std::vector<std::string>& v, bool quoted) {
    std::string out = "{";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + (quoted ? "\"" + v[i] + "\"" : v[i]);
    return out + "}";
}

// The rate of `type` the tenant is limited by, as this broker measured it (0: not limited).
double measured(tenant::catalog& c, security::quota_type type, const std::string& t, int64_t now) {
    auto& rates = c.rates();
    if (!rates.enforced(type) || !rates.limit(type, t, "")) return 0;
    return rates.rate(type, t, "", now);
}

mine collect(tenant::catalog& c) {
    std::vector<std::pair<std::string, int64_t>> seen;
    c.each_usage([&](const std::string& t, const tenant::usage& u) {
        seen.emplace_back(t, u.connections.load(std::memory_order_relaxed));
    });
    mine out;
    const int64_t now = steady_ms();
    for (auto& [t, conns] : seen) {
        const double p = measured(c, security::quota_type::produce, t, now);
        const double f = measured(c, security::quota_type::fetch, t, now);
        if (conns <= 0 && p <= 0 && f <= 0) continue;
        out.tenants.push_back(t);
        out.connections.push_back(std::to_string(conns));
        out.produce.push_back(std::to_string(p));
        out.fetch.push_back(std::to_string(f));
    }
    return out;
}

}  // namespace

cluster_tenant_usage::cluster_tenant_usage(const options& opt, bool cluster, security_services& security) {
    if (!cluster || !security.tenant_catalog()) return;
    catalog_ = security.tenant_catalog();
    node_id_ = opt.node_id;
    session_timeout_ms_ = opt.cluster_session_timeout_ms;
    session_ = std::make_unique<shared::pg_session>(opt.cluster, "tenant usage");
    exchange();
    catalog_->set_cluster_usage(&others_);
    task_ = std::make_unique<partition::periodic_task>(opt.cluster_heartbeat_ms,
                                                       [this](const std::function<bool()>&) { exchange(); });
}

cluster_tenant_usage::~cluster_tenant_usage() {
    task_.reset();
    if (catalog_) catalog_->set_cluster_usage(nullptr);
}

void cluster_tenant_usage::exchange() {
    auto m = collect(*catalog_);
    const std::string node = std::to_string(node_id_), timeout = std::to_string(session_timeout_ms_);
    auto published = session_->transaction(
        "publishing the tenants' usage", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
            if (auto gone = pg.exec(k_forget, {node}); !gone.ok()) return failure{gone.error()};
            if (m.tenants.empty()) return ok_v;
            auto in = pg.exec(k_publish, {node, array_of(m.tenants, true), array_of(m.connections, false),
                                          array_of(m.produce, false), array_of(m.fetch, false)});
            if (!in.ok()) return failure{in.error()};
            return ok_v;
        });
    auto report = [this](const std::string& why) {
        if (!failing_) spdlog::warn("cluster: {} (the other brokers' last tenant usage kept)", why);
        failing_ = true;
    };
    if (!published.ok()) return report(published.error().message);
    auto rows = session_->select("reading the tenants' usage", k_others, {node, timeout});
    if (!rows.ok()) return report(rows.error().message);
    auto live = session_->select("counting the live brokers", k_live, {timeout});
    if (!live.ok()) return report(live.error().message);
    if (failing_) spdlog::info("cluster: the tenants' usage exchanged again");
    failing_ = false;
    tenant::cluster_usage::by_tenant seen;
    for (size_t i = 0; i < rows->rows.size(); ++i)
        seen[rows->at(i, 0)] = {std::stoll(rows->at(i, 1)), std::stod(rows->at(i, 2)), std::stod(rows->at(i, 3))};
    others_.set(std::move(seen), live->rows.empty() ? 1 : int(std::stoll(live->at(0, 0))));
}

}  // namespace ketch::app
