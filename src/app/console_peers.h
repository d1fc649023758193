// Cluster mode: the console's way to the other brokers
// (console::peer_brokers, console/cluster_view.h): Kafka requests over the
// inter-broker listener, as this broker's inter-broker principal, on
// connections kept per broker (inter_broker_clients.h) with a time-out of
// their own, so that a page with a broker that does not answer still
// answers, naming it (docs/cluster.md "The console").
#pragma once

#include <chrono>

#include "app/inter_broker_clients.h"
#include "cluster/membership.h"
#include "console/context.h"

namespace ketch::app {

// request.timeout.ms of a console call to another broker.
inline constexpr std::chrono::milliseconds k_console_peer_timeout{3000};

// `clients` and `m` outlive what is returned.
console::peer_brokers console_peers(const cluster::membership& m, inter_broker_clients& clients);

}  // namespace ketch::app
