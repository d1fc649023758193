// GET /api/v1/producers[?topic=t]: the active idempotent and transactional
// producers of every partition (DescribeProducers), with their last sequence,
// last write and the start of an open transaction. In cluster mode every
// broker answers DescribeProducers for every partition from PostgreSQL.
#include "console/kafka_facts.h"
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/describe_producers.h"

namespace ketch::console {

void add_producers(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/producers", route([&ctx](http::request& req) {
                   const std::string who = principal_of(req);
                   auto topic = req.query_value("topic");
                   auto topics = describe_topics(ctx, who, topic && !topic->empty() ? topic : std::nullopt);
                   json arr = json::array();
                   if (topics.empty()) return json_reply({{"producers", arr}});
                   kafka::describe_producers_request q;
                   for (auto& t : topics) {
                       q.topics.push_back({});
                       q.topics.back().name = t.name;
                       q.topics.back().partition_indexes = t.partitions;
                   }
                   auto r =
                       ctx.kafka->call<kafka::describe_producers_request, kafka::describe_producers_response>(q, who);
                   for (auto& t : r.topics)
                       for (auto& p : t.partitions) {
                           if (p.error_code != 0) continue;
                           for (auto& s : p.active_producers)
                               arr.push_back({{"topic", t.name},
                                              {"partition", p.partition_index},
                                              {"producer_id", s.producer_id},
                                              {"producer_epoch", s.producer_epoch},
                                              {"last_sequence", s.last_sequence},
                                              {"last_timestamp", s.last_timestamp},
                                              {"coordinator_epoch", s.coordinator_epoch},
                                              {"current_txn_start_offset", s.current_txn_start_offset}});
                       }
                   return json_reply({{"producers", arr}});
               }));
}

}  // namespace ketch::console
