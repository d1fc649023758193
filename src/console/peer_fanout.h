// Cluster mode: a console page made of every live broker's local page
// (console/local_pages.h), asked of the other brokers at once: each on a
// thread of its own, all within one budget (k_peer_budget, the 3 s of a
// console call to another broker: app/console_peers.h). A broker that has
// not answered by then, or answered an error, is named in the page's
// "unreached_brokers" and the page answers with the others.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "console/cluster_view.h"
#include "console/reply.h"

namespace ketch::console {

inline constexpr std::chrono::milliseconds k_peer_budget{3000};

struct peer_answers {
    std::map<int32_t, json> pages;         // by node id, the brokers that answered 200
    json unreached = json::array();        // [{"node_id", "error"}], by node id
    std::map<int32_t, api_error> refused;  // answered, with an error status (ask_others: in unreached)
};

// GET /api/v1/<path>?<query_of(node)> of every broker in `view.others()`
// (none on a single node), for `view.principal()`: a tenant's user's page is
// rendered there in its tenant's names, as its own broker renders it.
peer_answers ask_others(const cluster_view& view, const std::string& path,
                        const std::function<std::string(int32_t node)>& query_of);

// The same of one broker: its page, or api_error with its status (503 when
// it is not reached).
json ask_one(const cluster_view& view, int32_t node, const std::string& path, const std::string& query);

// "a=1&b=x%20y" of the request's query parameters, `replace` set or
// overriding (an empty value drops the parameter).
std::string query_string(const http::request& req, const std::map<std::string, std::string>& replace = {});

// The node a request names with ?node= (its own broker when absent or itself).
int32_t node_param(const context& ctx, const http::request& req);

}  // namespace ketch::console
