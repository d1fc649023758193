// Cluster mode: the pages of this broker's console that another broker's
// console asks for over ConsolePeer (broker/console_peer.h; docs/design/
// console.md "Cluster-wide traffic and clients"): the traffic inspector's
// listing, connection events, one exchange and its records, the telemetry
// clients, the transactional ids this broker coordinates and (for a
// tenant's user) the groups it coordinates, each as this broker alone holds
// it, and one change: a tenant's user's offset reset of a group this broker
// coordinates (POST). Only these: any other path is 404. The page is rendered for the
// principal the asking console logged in (its tenant view, its in-process
// Kafka calls), so it shows no more than that console would show it of its
// own broker.
#pragma once

#include <string>

#include "console/context.h"
#include "http/router.h"

namespace ketch::console {

class local_pages {
public:
    explicit local_pages(const context& ctx);

    struct request {
        std::string method = "GET", path, query, body;
    };
    // <method> /api/v1/<path>?<query> with `body` as `principal`: its status
    // and JSON body.
    peer_brokers::page answer(const request& page, const std::string& principal) const;

private:
    http::router router_;
};

// The local routes (GET) of the traffic inspector, the clients page, the
// transactions and the groups, on `r`; ctx outlives r.
void add_local_traffic(http::router& r, const context& ctx);
void add_local_clients(http::router& r, const context& ctx);
void add_local_transactions(http::router& r, const context& ctx);
void add_local_groups(http::router& r, const context& ctx);
// POST /api/v1/groups/{group}/offsets: the reset of a group this broker
// coordinates (console/group_offsets.cc), for a tenant's user of another
// broker's console.
void add_local_group_offsets(http::router& r, const context& ctx);

}  // namespace ketch::console
