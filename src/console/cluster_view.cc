#include "console/cluster_view.h"

#include <spdlog/spdlog.h>

#include "console/tenant_view.h"
#include "protocol/messages/find_coordinator.h"

namespace ketch::console {

cluster_view::cluster_view(const context& ctx, std::string principal, reach r)
    : ctx_(ctx),
      who_(std::move(principal)),
      scoped_(tenant_of_principal(ctx, who_).has_value()),
      clustered_(r == reach::cluster && ctx.peers.call && ctx.peers.live) {}

std::vector<int32_t> cluster_view::others() const {
    std::vector<int32_t> out;
    if (!clustered()) return out;
    for (int32_t n : ctx_.peers.live())
        if (n != ctx_.node_id) out.push_back(n);
    std::sort(out.begin(), out.end());
    return out;
}

int32_t cluster_view::coordinator_of(const std::string& key, int8_t key_type) {
    kafka::find_coordinator_request q;
    q.key = key;  // v0-3
    q.key_type = key_type;
    q.coordinator_keys.push_back(key);  // v4+
    auto r = ctx_.kafka->call<kafka::find_coordinator_request, kafka::find_coordinator_response>(q, who_);
    if (!r.coordinators.empty()) {
        auto& c = r.coordinators.front();
        return c.error_code == 0 ? c.node_id : -1;
    }
    return r.error_code == 0 ? r.node_id : -1;
}

void cluster_view::not_reached(int32_t node, const std::string& why) {
    spdlog::warn("console: broker {} not reached over the inter-broker listener: {}", node, why);
    unreached_[node] = why;
}

void cluster_view::throw_unreached(const std::string& group, int32_t node) const {
    auto it = unreached_.find(node);
    throw api_error(503, "group " + group + ": its coordinator, broker " + std::to_string(node) + ", was not reached" +
                             (it == unreached_.end() ? "" : ": " + it->second));
}

void cluster_view::throw_not_forwarded(const std::string& group, int32_t node) const {
    throw api_error(501, "group " + group + " is coordinated by broker " + std::to_string(node) +
                             ", which this console does not ask for a tenant's user: use that broker's console");
}

json cluster_view::unreached() const {
    json arr = json::array();
    for (auto& [node, why] : unreached_) arr.push_back({{"node_id", node}, {"error", why}});
    return arr;
}

}  // namespace ketch::console
