#include "app/remote_txns.h"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "broker/broker_context.h"
#include "cli/client.h"
#include "protocol/messages/add_partitions_to_txn.h"

namespace ketch::app {

namespace {

// request.timeout.ms of the call: a coordinator that does not answer within
// it fails the produce's verification with a retriable code.
constexpr std::chrono::milliseconds k_timeout{5000};

kafka::add_partitions_to_txn_request request_of(const broker::remote_txn_coordinator::call& c) {
    kafka::add_partitions_to_txn_request req;
    auto& t = req.transactions.emplace_back();
    t.transactional_id = c.transactional_id;
    t.producer_id = c.producer_id;
    t.producer_epoch = c.producer_epoch;
    t.verify_only = c.verify_only;
    for (auto& tp : *c.partitions) {
        auto it = std::find_if(t.topics.begin(), t.topics.end(), [&](auto& x) { return x.name == tp.topic; });
        if (it == t.topics.end()) {
            it = t.topics.emplace(t.topics.end());
            it->name = tp.topic;
        }
        it->partitions.push_back(tp.partition);
    }
    return req;
}

std::map<txn::topic_partition, error_code> all(const std::vector<txn::topic_partition>& tps, error_code e) {
    std::map<txn::topic_partition, error_code> out;
    for (auto& tp : tps) out[tp] = e;
    return out;
}

// The coordinator's answer per partition. AddPartitionsToTxnManager: the
// client never sees CLUSTER_AUTHORIZATION_FAILED (this broker's principal
// lacks CLUSTER_ACTION), it gets INVALID_TXN_STATE.
std::map<txn::topic_partition, error_code> answers_of(const kafka::add_partitions_to_txn_response& resp,
                                                      const std::vector<txn::topic_partition>& tps) {
    if (resp.error_code == int16_t(error_code::cluster_authorization_failed))
        return all(tps, error_code::invalid_txn_state);
    if (resp.error_code != 0) return all(tps, error_code(resp.error_code));
    std::map<txn::topic_partition, error_code> out;
    for (auto& r : resp.results_by_transaction)
        for (auto& t : r.topic_results)
            for (auto& p : t.results_by_partition)
                out[{t.name, p.partition_index}] = error_code(p.partition_error_code);
    return out;
}

}  // namespace

remote_txns::remote_txns(const broker::broker_context& ctx, const cluster::membership& m, inter_broker_config config)
    : ctx_(ctx), clients_(m, std::move(config), k_timeout) {
    if (!clients_.config().listener)
        spdlog::warn(
            "cluster: no inter-broker listener (no PLAINTEXT listener and no --inter-broker-listener): "
            "transactional produces to a broker that is not the transaction's coordinator are answered "
            "NOT_ENOUGH_REPLICAS (docs/cluster.md)");
    else
        spdlog::info("cluster: inter-broker calls on the {}", clients_.config().describe());
    broker::set_remote_txns(ctx_, this);
}

remote_txns::~remote_txns() { broker::set_remote_txns(ctx_, nullptr); }

void remote_txns::log_failure(int32_t node, const std::string& address, bool login, const std::string& why) {
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard l(mu_);
        auto it = logged_.find(node);
        if (it != logged_.end() && now - it->second < k_log_every) return;
        logged_[node] = now;
    }
    if (login)
        spdlog::error(
            "cluster: broker {} at {} refused this broker's inter-broker login ({}): {}; transactional produces for "
            "the transactional ids it coordinates are answered NOT_ENOUGH_REPLICAS until it accepts it (check "
            "--inter-broker-sasl-*, docs/cluster.md \"Inter-broker calls\")",
            node, address, clients_.config().describe(), why);
    else
        spdlog::warn("cluster: transaction coordinator {} at {} not reached on the {}: {}", node, address,
                     clients_.config().describe(), why);
}

void remote_txns::run(std::function<void()> job) { boost::asio::post(calls_, std::move(job)); }

std::map<txn::topic_partition, error_code> remote_txns::add_or_verify(const call& c) {
    auto address = clients_.address_of(c.node_id);
    if (!address) return all(*c.partitions, error_code::coordinator_not_available);
    auto req = request_of(c);
    std::optional<kafka::add_partitions_to_txn_response> resp;
    try {
        // A kept connection may have been closed meanwhile (the coordinator
        // restarted, or closed it idle): with_client tries once more on a new one.
        resp = clients_.with_client(c.node_id, *address, [&](cli::client& client) {
            std::optional<kafka::add_partitions_to_txn_response> r;
            // A coordinator without the broker versions (an older ketch): not
            // verified, as AddPartitionsToTxnManager on a version mismatch.
            if (client.version_for(req.api_key, 5) >= 4)
                r = client.call<kafka::add_partitions_to_txn_response>(req, -1, 5);
            return r;
        });
    } catch (const cli::kafka_error& e) {
        // Only the connection's set-up answers a code here (call() decodes
        // the answer): the SASL login was refused. Not asked again: the
        // same credentials are refused again. AddPartitionsToTxnManager
        // answers the produce Errors.forException(authenticationException).
        log_failure(c.node_id, *address, true, e.what());
        return all(*c.partitions, error_code::sasl_authentication_failed);
    } catch (const std::exception& e) {
        // Connection refused, closed or timed out, or the TLS handshake failed (twice).
        log_failure(c.node_id, *address, false, e.what());
        return all(*c.partitions, error_code::network_exception);
    }
    if (!resp) return all(*c.partitions, error_code::none);
    return answers_of(*resp, *c.partitions);
}

}  // namespace ketch::app
