// Cluster mode: this broker's calls to the transaction coordinators of other
// brokers (broker/txn_forward.h): AddPartitionsToTxn v5, one Kafka client
// connection per call in flight, kept for the next call to the same broker
// (inter_broker_clients.h). The coordinator is reached on its advertised
// address of the inter-broker listener, with that listener's TLS and SASL
// (inter_broker.h; docs/cluster.md "Inter-broker calls"): without one, every
// call answers COORDINATOR_NOT_AVAILABLE.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "app/inter_broker_clients.h"
#include "broker/txn_forward.h"
#include "cluster/membership.h"

namespace ketch::app {

class remote_txns final : public broker::remote_txn_coordinator {
public:
    // Registers itself as `ctx`'s (broker::set_remote_txns) until destroyed.
    remote_txns(const broker::broker_context& ctx, const cluster::membership& m, inter_broker_config config);
    ~remote_txns() override;
    remote_txns(const remote_txns&) = delete;
    remote_txns& operator=(const remote_txns&) = delete;

    void run(std::function<void()> job) override;
    std::map<txn::topic_partition, error_code> add_or_verify(const call& c) override;

private:
    // Logs a refused login (an error) or a failed connection (a warning, e.g.
    // a TLS handshake) at `node`, at most once per k_log_every per node: each
    // transactional produce for its ids would log it again.
    void log_failure(int32_t node, const std::string& address, bool login, const std::string& why);

    const broker::broker_context& ctx_;
    inter_broker_clients clients_;
    std::mutex mu_;
    std::map<int32_t, std::chrono::steady_clock::time_point> logged_;  // under mu_
    static constexpr std::chrono::seconds k_log_every{30};
    // The calls in flight at once (each holds a connection and waits at most
    // k_timeout); destroyed first, so its running calls finish with clients_.
    boost::asio::thread_pool calls_{8};
};

}  // namespace ketch::app
