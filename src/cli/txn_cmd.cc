// ketch txn list|describe: ListTransactions on every broker (filtered by
// state and, with ListTransactions v2, by an id pattern), and
// DescribeTransactions at the coordinator (with DescribeProducers of the
// partitions the transaction touches).
#include <iostream>

#include "cli/command.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/list_transactions.h"

namespace ketch::cli {

namespace {

struct list_filter {
    std::vector<std::string> states;
    std::string pattern;  // RE2, whole id; empty: every id
};

void list_txns(context& ctx, const list_filter& f) {
    auto& c = ctx.connect();
    auto m = c.metadata(std::vector<std::string>{});
    answer a;
    for (auto& b : m.brokers) {
        kafka::list_transactions_request req;
        req.state_filters = f.states;
        if (!f.pattern.empty()) {
            // Filtering client-side would hide ids the broker's regex rules
            // treat differently; a broker without v2 is told so instead.
            if (c.version_for(kafka::list_transactions_request::api_key, 2, b.node_id) < 2)
                throw unsupported_api("ListTransactions v2 (--pattern)");
            req.transactional_id_pattern = f.pattern;
        }
        auto resp = c.call<kafka::list_transactions_response>(req, b.node_id);
        check(resp.error_code, "list transactions on broker " + std::to_string(b.node_id));
        for (auto& t : resp.transaction_states) {
            a.out.push_back({{"transactional_id", t.transactional_id},
                             {"producer_id", t.producer_id},
                             {"state", t.transaction_state},
                             {"coordinator", b.node_id}});
            a.rows.push_back(
                {t.transactional_id, std::to_string(t.producer_id), t.transaction_state, std::to_string(b.node_id)});
        }
    }
    a.print(ctx.json, {"TRANSACTIONAL-ID", "PRODUCER-ID", "STATE", "COORDINATOR"});
}

void describe_txns(context& ctx, const std::vector<std::string>& ids) {
    auto& c = ctx.connect();
    json all = json::array();
    for (auto& id : ids) {
        int node = c.coordinator(id, coordinator_type::transaction);
        kafka::describe_transactions_request req;
        req.transactional_ids = {id};
        auto resp = c.call<kafka::describe_transactions_response>(req, node);
        for (auto& t : resp.transaction_states) {
            check(t.error_code, "transactional id '" + id + "'");
            json topics = json::array();
            std::string parts;
            for (auto& tp : t.topics) {
                topics.push_back({{"topic", tp.topic}, {"partitions", tp.partitions}});
                for (auto p : tp.partitions) parts += (parts.empty() ? "" : ",") + tp.topic + "/" + std::to_string(p);
            }
            all.push_back({{"transactional_id", t.transactional_id},
                           {"state", t.transaction_state},
                           {"producer_id", t.producer_id},
                           {"producer_epoch", t.producer_epoch},
                           {"timeout_ms", t.transaction_timeout_ms},
                           {"start_time_ms", t.transaction_start_time_ms},
                           {"partitions", topics}});
            if (!ctx.json)
                std::cout << "TRANSACTIONAL-ID  " << t.transactional_id << "\nSTATE             " << t.transaction_state
                          << "\nPRODUCER          " << t.producer_id << " (epoch " << t.producer_epoch << ")"
                          << "\nTIMEOUT-MS        " << t.transaction_timeout_ms << "\nSTARTED-MS        "
                          << t.transaction_start_time_ms << "\nPARTITIONS        " << parts << "\n";
            // The producers of those partitions, for the open transaction's start offsets.
            for (auto& tp : t.topics) {
                auto leaders = c.leaders(tp.topic);
                for (auto p : tp.partitions) {
                    kafka::describe_producers_request dp;
                    auto& rt = dp.topics.emplace_back();
                    rt.name = tp.topic;
                    rt.partition_indexes = {p};
                    auto pr = c.call<kafka::describe_producers_response>(dp, leaders.count(p) ? leaders[p] : -1);
                    for (auto& rt2 : pr.topics)
                        for (auto& pp : rt2.partitions)
                            for (auto& ap : pp.active_producers)
                                if (ap.producer_id == t.producer_id && !ctx.json)
                                    std::cout << "  " << tp.topic << "/" << p << " open since offset "
                                              << ap.current_txn_start_offset << "\n";
                }
            }
        }
    }
    if (ctx.json) std::cout << (all.size() == 1 ? all.front() : all).dump() << "\n";
}

}  // namespace

void add_txn_commands(CLI::App& app, context& ctx) {
    auto ids = std::make_shared<std::vector<std::string>>();
    auto filter = std::make_shared<list_filter>();
    auto* t = app.add_subcommand("txn", "transactions: list and describe");
    t->require_subcommand(1);
    auto* l = add_broker_command(t, ctx, "list", "transactional ids known to the coordinators",
                                 "Examples:\n  ketch txn list\n  ketch txn list --state Ongoing --pattern 'orders-.*'",
                                 [&ctx, filter] { list_txns(ctx, *filter); });
    l->add_option("--state", filter->states, "only these states (Ongoing, PrepareCommit, CompleteAbort, Empty, ...)");
    l->add_option("--pattern", filter->pattern,
                  "only ids the whole of which match this regular expression (ListTransactions v2, Kafka 4.1+)");
    auto* d =
        add_broker_command(t, ctx, "describe", "state, producer and partitions of transactional ids",
                           "Example:\n  ketch txn describe my-app-txn", [&ctx, ids] { describe_txns(ctx, *ids); });
    d->add_option("ids", *ids, "transactional ids")->required();
}

}  // namespace ketch::cli
