// GET /api/v1/transactions: every transactional id with its state, producer,
// timeout, partitions and the age of an open transaction (ListTransactions +
// DescribeTransactions); GET /api/v1/transactions/{id}: one of them.
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/list_transactions.h"

namespace ketch::console {

namespace {

json describe(const context& ctx, const std::string& who, const std::vector<std::string>& ids) {
    json arr = json::array();
    if (ids.empty()) return arr;
    kafka::describe_transactions_request q;
    q.transactional_ids = ids;
    auto r = ctx.kafka->call<kafka::describe_transactions_request, kafka::describe_transactions_response>(q, who);
    const int64_t now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (auto& s : r.transaction_states) {
        json topics = json::array();
        for (auto& t : s.topics) topics.push_back({{"topic", t.topic}, {"partitions", t.partitions}});
        json row = {{"transactional_id", s.transactional_id},
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

}  // namespace

void add_transactions(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/transactions", route([&ctx](http::request& req) {
                   const std::string who = principal_of(req);
                   kafka::list_transactions_request q;
                   auto r = ctx.kafka->call<kafka::list_transactions_request, kafka::list_transactions_response>(
                       q, who, std::chrono::seconds(30), 1);
                   check_kafka_error(r.error_code, "ListTransactions");
                   std::vector<std::string> ids;
                   for (auto& t : r.transaction_states) ids.push_back(t.transactional_id);
                   std::sort(ids.begin(), ids.end());
                   return json_reply({{"transactions", describe(ctx, who, ids)}});
               }));
    server.add("GET", "/api/v1/transactions/{id}", route([&ctx](http::request& req) {
                   auto arr = describe(ctx, principal_of(req), {req.param("id")});
                   if (arr.empty() || !arr[0]["error"].is_null())
                       throw api_error(arr.empty() ? 404 : 404,
                                       "transactional id " + req.param("id") + ": " +
                                           (arr.empty() ? "unknown" : arr[0]["error"].get<std::string>()));
                   return json_reply(arr[0]);
               }));
}

}  // namespace ketch::console
