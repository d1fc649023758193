// GET /api/v1/transactions: every transactional id with its state, producer,
// timeout, partitions and the age of an open transaction (ListTransactions +
// DescribeTransactions); GET /api/v1/transactions/{id}: one of them.
//
// A transactional id is held by its coordinator, which alone lists and
// describes it. In cluster mode the list is every live broker's (each
// broker's own list, rendered there for the logged-in principal and asked
// over ConsolePeer: console/peer_fanout.h), each row naming its broker
// (node_id), the brokers not reached in "unreached_brokers"; as Kafka's
// Admin.listTransactions sends ListTransactions to every broker
// (ListTransactionsHandler, AllBrokersStrategy). One id is described by its
// coordinator: ?node=N's, else this broker's, else the broker FindCoordinator
// names.
#include "base/clock.h"
#include "base/percent_encode.h"
#include "console/cluster_view.h"
#include "console/local_pages.h"
#include "console/peer_fanout.h"
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/list_transactions.h"

namespace ketch::console {

namespace {

constexpr int8_t k_transaction_key = 1;  // FindCoordinator's key_type of a transactional id

json describe_transactions(const context& ctx, const std::string& who, const std::vector<std::string>& ids) {
    json arr = json::array();
    if (ids.empty()) return arr;
    kafka::describe_transactions_request q;
    q.transactional_ids = ids;
    auto r = ctx.kafka->call<kafka::describe_transactions_request, kafka::describe_transactions_response>(q, who);
    const int64_t now = wall_ms();
    for (auto& s : r.transaction_states) {
        json topics = json::array();
        for (auto& t : s.topics) topics.push_back({{"topic", t.topic}, {"partitions", t.partitions}});
        json row = {{"transactional_id", s.transactional_id},
                    {"node_id", ctx.node_id},
                    {"error", s.error_code ? json(kafka_error_name(s.error_code)) : json(nullptr)},
                    {"state", s.transaction_state},
                    {"producer_id", s.producer_id},
                    {"producer_epoch", s.producer_epoch},
                    {"timeout_ms", s.transaction_timeout_ms},
                    {"start_time_ms", s.transaction_start_time_ms},
                    {"partitions", topics}};
        row["age_ms"] = s.transaction_start_time_ms > 0 ? json(now - s.transaction_start_time_ms) : json(nullptr);
        arr.push_back(row);
    }
    return arr;
}

// The transactional ids this broker coordinates, as `who` may see them.
json local_list(const context& ctx, const std::string& who) {
    kafka::list_transactions_request q;
    auto r = ctx.kafka->call<kafka::list_transactions_request, kafka::list_transactions_response>(
        q, who, std::chrono::seconds(30), 1);
    check_kafka_error(r.error_code, "ListTransactions");
    std::vector<std::string> ids;
    for (auto& t : r.transaction_states) ids.push_back(t.transactional_id);
    std::sort(ids.begin(), ids.end());
    return {{"transactions", describe_transactions(ctx, who, ids)}};
}

// One id as this broker describes it; 404 when it does not know it.
json local_one(const context& ctx, const std::string& who, const std::string& id) {
    auto arr = describe_transactions(ctx, who, {id});
    if (arr.empty() || !arr[0]["error"].is_null())
        throw api_error(
            404, "transactional id " + id + ": " + (arr.empty() ? "unknown" : arr[0]["error"].get<std::string>()));
    return arr[0];
}

json cluster_list(const context& ctx, const http::request& req) {
    const cluster_view view(ctx, principal_of(req));
    json out = local_list(ctx, view.principal());
    if (!view.clustered()) return out;
    auto peers = ask_others(view, "transactions", [](int32_t) { return std::string(); });
    auto& rows = out["transactions"];
    for (auto& [node, page] : peers.pages)
        if (page.contains("transactions") && page["transactions"].is_array())
            for (auto& t : page["transactions"]) rows.push_back(t);
    auto key = [](const json& r) {
        return std::tuple(r.value("transactional_id", std::string()), r.value("node_id", 0));
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const json& a, const json& b) { return key(a) < key(b); });
    out["unreached_brokers"] = std::move(peers.unreached);
    return out;
}

json cluster_one(const context& ctx, const http::request& req) {
    const std::string id = req.param("id");
    cluster_view view(ctx, principal_of(req));
    const std::string path = "transactions/" + percent_encode(id);
    if (const int32_t node = node_param(ctx, req); node != ctx.node_id) return ask_one(view, node, path, "");
    try {
        return local_one(ctx, view.principal(), id);
    } catch (const api_error& e) {
        if (e.status != 404 || !view.clustered()) throw;
        const int32_t node = view.coordinator_of(id, k_transaction_key);
        if (node < 0 || node == ctx.node_id) throw;
        return ask_one(view, node, path, "");
    }
}

}  // namespace

void add_local_transactions(http::router& r, const context& ctx) {
    r.add("GET", "/api/v1/transactions",
          route([&ctx](http::request& req) { return json_reply(local_list(ctx, principal_of(req))); }));
    r.add("GET", "/api/v1/transactions/{id}",
          route([&ctx](http::request& req) { return json_reply(local_one(ctx, principal_of(req), req.param("id"))); }));
}

void add_transactions(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/transactions",
               route([&ctx](http::request& req) { return json_reply(cluster_list(ctx, req)); }));
    server.add("GET", "/api/v1/transactions/{id}",
               route([&ctx](http::request& req) { return json_reply(cluster_one(ctx, req)); }));
}

}  // namespace ketch::console
