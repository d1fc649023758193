#include "app/cluster_tenants.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "broker/handler.h"
#include "console/tenant_purge.h"
#include "security/authorizer.h"

namespace ketch::app {

namespace {
constexpr const char* k_prefix = "tenant-purge:";  // tenant-purge:<node id>:<tenant>
constexpr auto k_settle_timeout = std::chrono::seconds(40);
}  // namespace

cluster_tenants::cluster_tenants(const options& opt, storage_engines& storage, security_services& security,
                                 net::request_handler& dispatcher, boost::asio::io_context& reactor,
                                 decltype(console::context::purge_transactions) purge_transactions)
    : storage_(storage), node_(std::to_string(opt.node_id)) {
    if (!storage.shared || !security.tenant_catalog()) return;
    auto supers = security::parse_super_users(opt.super_users);
    for (auto& s : supers)
        if (s.starts_with("User:")) {
            who_ = s;
            break;
        }
    session_ = std::make_unique<shared::pg_session>(storage.shared->pool(), "tenants");
    kafka_ = std::make_unique<console::kafka_client>(dispatcher, reactor, [](int16_t key) -> int16_t {
        auto* e = broker::find_handler(key);
        return e ? e->max_version : int16_t(-1);
    });
    ctx_.kafka = kafka_.get();
    ctx_.node_id = opt.node_id;
    ctx_.tenants = security.tenant_catalog();
    ctx_.purge_transactions = std::move(purge_transactions);
    worker_ = std::thread([this] { run(); });
    storage.shared->set_on_notice_prefix(k_prefix, [this](const std::string& rest) { heard(rest); });
}

cluster_tenants::~cluster_tenants() {
    if (!worker_.joinable()) return;
    if (storage_.shared) storage_.shared->set_on_notice_prefix(k_prefix, nullptr);
    {
        std::lock_guard l(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
}

console::cluster_purge_hooks cluster_tenants::hooks() {
    if (!session_) return {};
    return {[this](const std::string& t) {
                auto before = leftovers(t);
                const std::string payload = std::string(k_prefix) + node_ + ":" + t;
                auto st =
                    session_->transaction("tenants", payload.c_str(),
                                          [](cluster::pg_connection&) -> status<cluster::pg_error> { return ok_v; });
                if (!st.ok()) spdlog::warn("cluster: announcing the deletion of tenant {}: {}", t, st.error().message);
                return before;
            },
            [this](const std::string& t) {
                const auto deadline = std::chrono::steady_clock::now() + k_settle_timeout;
                auto left = leftovers(t);
                while ((left.groups || left.transactional_ids) && std::chrono::steady_clock::now() < deadline) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // polls PostgreSQL, bounded
                    left = leftovers(t);
                }
                return left;
            }};
}

// What PostgreSQL holds of the tenant: groups (rows or committed offsets) and
// transactional ids named "T~...". -1 each when it cannot be read.
console::tenant_leftovers cluster_tenants::leftovers(const std::string& t) {
    const std::string prefix = shared::to_bytea_hex(t + "~"), len = std::to_string(t.size() + 1);
    auto rows = session_->select(
        "tenants",
        "SELECT (SELECT count(*) FROM (SELECT group_id FROM ketch_groups UNION SELECT group_id FROM "
        "ketch_group_offsets) g WHERE substring(group_id from 1 for $2::int) = $1::bytea), (SELECT count(*) FROM "
        "ketch_txns WHERE substring(transactional_id from 1 for $2::int) = $1::bytea)",
        {prefix, len});
    if (!rows.ok() || rows->rows.empty()) {
        spdlog::warn("cluster: reading tenant {}'s groups: {}", t, rows.ok() ? "no row" : rows.error().message);
        return {-1, -1};
    }
    return {std::stoll(rows->at(0, 0)), std::stoll(rows->at(0, 1))};
}

// Another broker deletes `rest` = "<node>:<tenant>": its connections here
// close at their next request; the worker removes what this broker coordinates.
void cluster_tenants::heard(const std::string& rest) {
    const auto colon = rest.find(':');
    if (colon == std::string::npos || rest.substr(0, colon) == node_) return;
    const std::string t = rest.substr(colon + 1);
    ctx_.tenants->usage_of(t).deletions.fetch_add(1, std::memory_order_acq_rel);
    {
        std::lock_guard l(mu_);
        queue_.push_back(t);
    }
    cv_.notify_all();
}

void cluster_tenants::run() {
    std::unique_lock l(mu_);
    while (true) {
        cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        const std::string t = queue_.front();
        queue_.pop_front();
        l.unlock();
        try {
            if (who_.empty())
                spdlog::warn("cluster: tenant {} deleted elsewhere: no --super-users to remove its groups here", t);
            else
                spdlog::info("cluster: tenant {} deleted through another broker: removed here {}", t,
                             console::purge_coordinated(ctx_, who_, t).dump());
        } catch (const std::exception& e) {
            spdlog::warn("cluster: removing tenant {}'s groups and transactional ids: {}", t, e.what());
        }
        ctx_.tenants->usage_of(t).deletions.fetch_add(1, std::memory_order_acq_rel);
        l.lock();
    }
}

}  // namespace ketch::app
