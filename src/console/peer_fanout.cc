#include "console/peer_fanout.h"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "base/percent_encode.h"

namespace ketch::console {

namespace {

// What the threads of one fan-out share; they may outlive the page that
// started them (a broker that answers after the budget), so it is theirs too.
struct fanout_state {
    std::mutex mu;
    std::condition_variable done;
    size_t left = 0;
    std::map<int32_t, peer_brokers::page> answers;
    std::map<int32_t, std::string> failed;
};

json parsed(int32_t node, const peer_brokers::page& p) {
    auto j = json::parse(p.body, nullptr, false);
    if (j.is_discarded()) throw api_error(502, "broker " + std::to_string(node) + " answered a page that is not JSON");
    if (p.status != 200) throw api_error(p.status, j.value("message", "broker " + std::to_string(node) + " failed"));
    return j;
}

// `path` of each of `nodes`, at once, within k_peer_budget.
peer_answers fan_out(const cluster_view& view, const std::vector<int32_t>& nodes, const std::string& path,
                     const std::function<std::string(int32_t node)>& query_of) {
    peer_answers out;
    if (nodes.empty()) return out;
    auto st = std::make_shared<fanout_state>();
    st->left = nodes.size();
    for (int32_t node : nodes) {
        std::thread([st, node, page_of = view.ctx().peers.page_of, path, query = query_of(node),
                     who = view.principal()] {
            peer_brokers::page p;
            std::string why;
            try {
                p = page_of(node, path, query, who);
            } catch (const std::exception& e) {
                why = e.what();
            }
            std::lock_guard l(st->mu);
            if (why.empty())
                st->answers[node] = std::move(p);
            else
                st->failed[node] = why;
            --st->left;
            st->done.notify_all();
        }).detach();
    }
    std::unique_lock l(st->mu);
    st->done.wait_until(l, std::chrono::steady_clock::now() + k_peer_budget, [&] { return st->left == 0; });
    std::map<int32_t, std::string> unreached = st->failed;
    for (int32_t node : nodes) {
        if (st->failed.count(node)) continue;
        auto it = st->answers.find(node);
        if (it == st->answers.end()) {
            unreached[node] = "no answer within " + std::to_string(k_peer_budget.count()) + " ms";
            continue;
        }
        try {
            out.pages[node] = parsed(node, it->second);
        } catch (const api_error& e) {
            out.refused.emplace(node, e);
        }
    }
    for (auto& [node, why] : unreached) out.unreached.push_back({{"node_id", node}, {"error", why}});
    return out;
}

}  // namespace

peer_answers ask_others(const cluster_view& view, const std::string& path,
                        const std::function<std::string(int32_t node)>& query_of) {
    auto out = fan_out(view, view.others(), path, query_of);
    for (auto& [node, e] : out.refused) out.unreached.push_back({{"node_id", node}, {"error", e.what()}});
    std::sort(out.unreached.begin(), out.unreached.end(),
              [](const json& a, const json& b) { return a["node_id"].get<int32_t>() < b["node_id"].get<int32_t>(); });
    return out;
}

json ask_one(const cluster_view& view, int32_t node, const std::string& path, const std::string& query) {
    if (!view.clustered()) throw api_error(404, "no broker " + std::to_string(node) + " in this console's view");
    auto out = fan_out(view, {node}, path, [&](int32_t) { return query; });
    if (auto it = out.pages.find(node); it != out.pages.end()) return it->second;
    if (auto it = out.refused.find(node); it != out.refused.end()) throw it->second;  // its page's status
    throw api_error(503, "broker " + std::to_string(node) +
                             " was not reached: " + out.unreached.front()["error"].get<std::string>());
}

std::string query_string(const http::request& req, const std::map<std::string, std::string>& replace) {
    std::map<std::string, std::string> q;
    for (auto& [k, v] : req.query) q.emplace(k, v);  // the first value of each
    for (auto& [k, v] : replace) q[k] = v;
    std::string out;
    for (auto& [k, v] : q) {
        if (v.empty()) continue;
        out += (out.empty() ? "" : "&") + percent_encode(k) + "=" + percent_encode(v);
    }
    return out;
}

int32_t node_param(const context& ctx, const http::request& req) {
    return int32_t(query_int(req, "node", ctx.node_id, 0, INT32_MAX));
}

}  // namespace ketch::console
