#include "app/cluster_tenant_storage.h"

#include <spdlog/spdlog.h>

#include "tenant/names.h"

namespace ketch::app {

namespace {

// Every topic's bytes (its partitions' ketch_partitions.stored_bytes, kept by
// the statements that add and drop index rows); a deleted topic has no
// ketch_topics row, so its partitions (dropped later by the janitor) count
// for no one from its deletion on. By topic, so that the tenant of a name is
// tenant::owner_of's alone.
constexpr const char* k_bytes_by_topic =
    "SELECT t.name, sum(p.stored_bytes) FROM ketch_partitions p JOIN ketch_topics t ON t.topic_id = p.topic_id "
    "GROUP BY t.name";

}  // namespace

cluster_tenant_storage::cluster_tenant_storage(const options& opt, storage_engines& storage,
                                               security_services& security, broker::broker_context& ctx)
    : usage_(opt, storage.shared ? &storage.shared->pool() : nullptr, security) {
    if (!storage.shared || !security.tenant_catalog()) return;
    session_ = std::make_unique<shared::pg_session>(storage.shared->pool(), "tenant storage");
    read();
    ctx.tenant_storage = &totals_;
    task_ = std::make_unique<partition::periodic_task>(opt.cluster_heartbeat_ms,
                                                       [this](const std::function<bool()>&) { read(); });
}

void cluster_tenant_storage::read() {
    // What this broker let through before the read: what it lets through
    // meanwhile counts twice until the next read, rather than not at all.
    auto before = totals_.appended();
    auto rows = session_->select("reading the tenants' bytes", k_bytes_by_topic);
    if (!rows.ok()) {
        if (!failing_) spdlog::warn("cluster: {} (the tenants' last bytes kept)", rows.error().message);
        failing_ = true;
        return;
    }
    if (failing_) spdlog::info("cluster: the tenants' bytes read again");
    failing_ = false;
    broker::tenant_storage_totals::totals held;
    for (size_t i = 0; i < rows->rows.size(); ++i)
        held[std::string(tenant::owner_of(rows->at(i, 0)))] += std::stoll(rows->at(i, 1));
    totals_.set(std::move(held), std::move(before));
}

}  // namespace ketch::app
