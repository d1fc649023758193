#include "console/traffic_cluster.h"

#include <algorithm>
#include <map>

#include "console/cluster_view.h"
#include "console/peer_fanout.h"
#include "inspect/traffic_ring.h"

namespace ketch::console {

namespace {

using cursor = std::map<int32_t, uint64_t>;

// "1:815,2:301" -> {1: 815, 2: 301}; 400 when malformed.
cursor parse_cursor(const std::string& s) {
    cursor out;
    size_t at = 0;
    while (at < s.size()) {
        size_t end = s.find(',', at);
        if (end == std::string::npos) end = s.size();
        const std::string part = s.substr(at, end - at);
        const size_t colon = part.find(':');
        try {
            if (colon == std::string::npos || colon == 0 || colon + 1 == part.size()) throw std::invalid_argument(part);
            size_t used = 0;
            const int32_t node = std::stoi(part.substr(0, colon), &used);
            if (used != colon) throw std::invalid_argument(part);
            out[node] = std::stoull(part.substr(colon + 1), &used);
            if (used != part.size() - colon - 1 || part[colon + 1] == '-') throw std::invalid_argument(part);
        } catch (const std::exception&) {
            throw api_error(400, "cursor must be node:seq pairs separated by commas, not " + s);
        }
        at = end + 1;
    }
    return out;
}

std::string format_cursor(const cursor& c) {
    std::string out;
    for (auto& [node, seq] : c) out += (out.empty() ? "" : ",") + std::to_string(node) + ":" + std::to_string(seq);
    return out;
}

// Rows of every page in time order (ties: by broker, then sequence).
std::vector<json> merged(json own, const std::map<int32_t, json>& others, const char* field) {
    std::vector<json> rows;
    for (auto& r : own[field]) rows.push_back(std::move(r));
    for (auto& [node, page] : others)
        if (page.contains(field) && page[field].is_array())
            for (auto& r : page[field]) rows.push_back(r);
    auto key = [](const json& r) {
        return std::tuple(r.value("time_ms", int64_t(0)), r.value("node_id", 0), r.value("seq", uint64_t(0)));
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const json& a, const json& b) { return key(a) < key(b); });
    return rows;
}

}  // namespace

json cluster_traffic(const context& ctx, const http::request& req, const local_page& local) {
    const cluster_view view(ctx, principal_of(req));
    if (!view.clustered()) return local(req);
    const cursor from = parse_cursor(req.query_value("cursor").value_or(""));
    auto seq_of = [&](int32_t node) { return from.count(node) ? from.at(node) : uint64_t(0); };
    http::request own = req;
    if (from.count(ctx.node_id)) {
        own.query.erase("after");
        own.query.emplace("after", std::to_string(from.at(ctx.node_id)));
    }
    json out = local(own);
    auto peers = ask_others(view, "traffic", [&](int32_t node) {
        return query_string(req, {{"after", std::to_string(seq_of(node))}, {"cursor", ""}});
    });
    cursor next{{ctx.node_id, out.value("last_seq", uint64_t(0))}};
    for (auto& u : peers.unreached) {
        const int32_t node = u["node_id"].get<int32_t>();
        if (from.count(node)) next[node] = from.at(node);  // resumed where it was
    }
    for (auto& [node, page] : peers.pages) next[node] = page.value("last_seq", seq_of(node));
    auto rows = merged(out, peers.pages, "exchanges");
    const size_t limit = size_t(query_int(req, "limit", 200, 1, int64_t(inspect::traffic_ring::k_exchanges)));
    if (rows.size() > limit) rows.erase(rows.begin(), rows.end() - std::ptrdiff_t(limit));
    out["exchanges"] = std::move(rows);
    out["cursor"] = format_cursor(next);
    out["unreached_brokers"] = std::move(peers.unreached);
    return out;
}

json cluster_events(const context& ctx, const http::request& req, const local_page& local) {
    const cluster_view view(ctx, principal_of(req));
    if (!view.clustered()) return local(req);
    json out = local(req);
    auto peers = ask_others(view, "traffic/connections", [&](int32_t) { return query_string(req); });
    out["events"] = merged(out, peers.pages, "events");
    out["unreached_brokers"] = std::move(peers.unreached);
    return out;
}

json on_node(const context& ctx, const http::request& req, const std::string& path, const local_page& local) {
    const int32_t node = node_param(ctx, req);
    if (node == ctx.node_id) return local(req);
    return ask_one(cluster_view(ctx, principal_of(req)), node, path, query_string(req, {{"node", ""}}));
}

}  // namespace ketch::console
