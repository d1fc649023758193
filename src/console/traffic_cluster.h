// Cluster mode: the traffic inspector's pages as the cluster's
// (docs/console.md "Traffic", docs/design/console.md "Cluster-wide traffic
// and clients"). Each broker keeps its own ring; a page is this broker's
// local page merged with every other live broker's (asked at once over
// ConsolePeer, console/peer_fanout.h), rows ordered by time and each naming
// its broker (node_id). On a single node, or for a tenant's user, a page is
// the local one unchanged.
//
// The listing's sequence numbers are per broker, so its position is a
// cursor, "1:815,2:301,3:12" (node:last seq), given back as `cursor` and
// taken as ?cursor=; ?after= still sets this broker's own position.
#pragma once

#include <functional>

#include "console/context.h"
#include "console/reply.h"

namespace ketch::console {

using local_page = std::function<json(const http::request&)>;

// GET /api/v1/traffic: the newest `limit` exchanges of the cluster after the
// cursor, oldest first, with `cursor` and `unreached_brokers`.
json cluster_traffic(const context& ctx, const http::request& req, const local_page& local);

// GET /api/v1/traffic/connections: every broker's events, oldest first.
json cluster_events(const context& ctx, const http::request& req, const local_page& local);

// A page of one broker: ?node=N's (asked at `path`), or this one's.
json on_node(const context& ctx, const http::request& req, const std::string& path, const local_page& local);

}  // namespace ketch::console
