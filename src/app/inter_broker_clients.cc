#include "app/inter_broker_clients.h"

namespace ketch::app {

inter_broker_clients::inter_broker_clients(const cluster::membership& m, inter_broker_config config,
                                           std::chrono::milliseconds timeout)
    : membership_(m), config_(std::move(config)), timeout_(timeout) {}

std::optional<std::string> inter_broker_clients::address_of(int32_t node) const {
    if (!config_.listener) return std::nullopt;
    auto live = membership_.live();
    for (auto& b : *live)
        if (b.node_id == node)
            if (auto* e = b.find(*config_.listener)) {
                const bool v6 = e->host.find(':') != std::string::npos;
                return (v6 ? "[" + e->host + "]" : e->host) + ":" + std::to_string(e->port);
            }
    return std::nullopt;
}

std::unique_ptr<cli::client> inter_broker_clients::take(int32_t node, const std::string& address, bool fresh,
                                                        bool& kept) {
    kept = false;
    if (!fresh) {
        std::lock_guard l(mu_);
        auto& v = idle_[node];
        if (!v.empty()) {
            auto c = std::move(v.back());
            v.pop_back();
            if (c->config().brokers.front() == address) {
                kept = true;
                return c;
            }
        }
    }
    cli::client_config cfg = config_.client;
    cfg.brokers = {address};
    cfg.timeout = timeout_;
    if (config_.token) cfg.sasl_oauthbearer_token = config_.token->current();  // a rotated token
    return std::make_unique<cli::client>(std::move(cfg));
}

void inter_broker_clients::give_back(int32_t node, std::unique_ptr<cli::client> c) {
    std::lock_guard l(mu_);
    auto& v = idle_[node];
    if (v.size() < k_idle_per_node) v.push_back(std::move(c));
}

}  // namespace ketch::app
