// Cluster mode: Kafka client connections (cli::client) from this broker to
// the others, on their advertised address of the inter-broker listener with
// its TLS and SASL (inter_broker.h; docs/cluster.md "Inter-broker calls"). A
// connection is kept after a call for the next call to the same broker (an
// idle pool per node, bounded). Used by the calls to other brokers'
// transaction coordinators (remote_txns.h) and by the console's view of the
// cluster (console_peers.h), each with a pool and a time-out of its own.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/inter_broker.h"
#include "cli/client.h"
#include "cluster/membership.h"

namespace ketch::app {

class inter_broker_clients {
public:
    // `timeout`: each call's request.timeout.ms (and the connection's set-up).
    inter_broker_clients(const cluster::membership& m, inter_broker_config config, std::chrono::milliseconds timeout);

    const inter_broker_config& config() const { return config_; }
    // `node`'s address on the inter-broker listener, "host:port" ("[v6]:port");
    // nullopt when no listener is chosen or `node` is not live or has none.
    std::optional<std::string> address_of(int32_t node) const;

    // f(client) on a kept connection to `node` at `address`, or a new one; a
    // kept connection that fails (the broker closed it idle, or restarted)
    // is replaced once by a new one (a new one that fails is not: a broker
    // that does not answer costs one time-out). cli::kafka_error (only the connection's
    // set-up answers one: the SASL login was refused) is not retried. Throws
    // what the last attempt threw; the connection goes back to the pool only
    // after f returned.
    template <class F>
    auto with_client(int32_t node, const std::string& address, F&& f) {
        for (bool fresh = false;; fresh = true) {
            std::unique_ptr<cli::client> c;
            bool kept = false;
            try {
                c = take(node, address, fresh, kept);
                if constexpr (std::is_void_v<decltype(f(*c))>) {
                    f(*c);
                    give_back(node, std::move(c));
                    return;
                } else {
                    auto out = f(*c);
                    give_back(node, std::move(c));
                    return out;
                }
            } catch (const cli::kafka_error&) {
                throw;
            } catch (const std::exception&) {
                if (!kept) throw;
            }
        }
    }

private:
    // A kept connection (`kept` set) unless `fresh`, else a new one.
    std::unique_ptr<cli::client> take(int32_t node, const std::string& address, bool fresh, bool& kept);
    void give_back(int32_t node, std::unique_ptr<cli::client> c);

    const cluster::membership& membership_;
    const inter_broker_config config_;
    const std::chrono::milliseconds timeout_;
    std::mutex mu_;
    std::map<int32_t, std::vector<std::unique_ptr<cli::client>>> idle_;
    static constexpr size_t k_idle_per_node = 8;
};

}  // namespace ketch::app
