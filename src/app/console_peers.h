// Cluster mode: the console's way to the other brokers
// (console::peer_brokers, console/cluster_view.h): Kafka requests over the
// inter-broker listener, as this broker's inter-broker principal, on
// connections kept per broker (inter_broker_clients.h) with a time-out of
// their own, so that a page with a broker that does not answer still
// answers, naming it (docs/cluster.md "The console").
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "app/inter_broker_clients.h"
#include "cluster/membership.h"
#include "console/context.h"

namespace ketch::app {

// request.timeout.ms of a console call to another broker.
inline constexpr std::chrono::milliseconds k_console_peer_timeout{3000};

// The console's page calls in flight to other brokers. A page answers
// after its budget and leaves the call to a broker that has not answered
// running on a thread of its own (console/peer_fanout.h): destroyed, this
// waits for them (at most 2 time-outs and a second, the most one call
// takes), so they never outlive the connections and the membership they use.
class peer_calls_in_flight {
public:
    ~peer_calls_in_flight();
    void enter();
    void leave();

private:
    std::mutex mu_;
    std::condition_variable none_;
    int calls_ = 0;
};

// `clients`, `m` and `calls` outlive what is returned.
console::peer_brokers console_peers(const cluster::membership& m, inter_broker_clients& clients,
                                    peer_calls_in_flight& calls);

}  // namespace ketch::app
