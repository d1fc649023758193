#include "broker/live_brokers.h"

#include "broker/request_context.h"
#include "cluster/membership.h"

namespace ketch::broker {

std::vector<listed_broker> live_brokers(const request_context& ctx) {
    const auto& c = ctx.broker.config;
    std::vector<listed_broker> out;
    auto live = ctx.broker.cluster->live();
    for (auto& b : *live) {
        if (b.node_id == c.node_id) {
            auto ep = c.advertised_for(ctx.conn.listener_name);
            out.push_back({b.node_id, ep.host, ep.port, b.rack});
        } else if (auto* e = b.find(ctx.conn.listener_name)) {
            out.push_back({b.node_id, e->host, e->port, b.rack});
        }
    }
    return out;
}

}  // namespace ketch::broker
