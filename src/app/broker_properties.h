// The Kafka broker properties that ketch's own settings stand for, as
// DescribeConfigs reports them (STATIC_BROKER_CONFIG): node.id, listeners,
// log.dirs, and the settings a one-node Kafka sets in its server.properties
// (internal topics with replication factor 1). Settings left at Kafka's
// default are not listed, as Kafka lists only what server.properties sets.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/options.h"

namespace ketch::app {

// One listener as the listener configs show it.
struct listener_endpoint {
    std::string name;      // PLAINTEXT, SASL, ...
    std::string protocol;  // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
    std::string host;      // bound
    int port = 0;
    std::string advertised_host;
    int advertised_port = 0;
};

// `listeners` lists every listener ("NAME://host:port,..."), the first one
// first; `listener.security.protocol.map` each listener's NAME:PROTOCOL.
std::map<std::string, std::string, std::less<>> static_broker_properties(
    const options& opt, const std::vector<listener_endpoint>& listeners);

}  // namespace ketch::app
