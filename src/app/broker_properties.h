// The Kafka broker properties that ketch's own settings stand for, as
// DescribeConfigs reports them (STATIC_BROKER_CONFIG): node.id, listeners,
// log.dirs, and the settings a one-node Kafka sets in its server.properties
// (internal topics with replication factor 1). Settings left at Kafka's
// default are not listed, as Kafka lists only what server.properties sets.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "app/options.h"

namespace ketch::app {

std::map<std::string, std::string, std::less<>> static_broker_properties(const options& opt, const std::string& host,
                                                                          int bound_port,
                                                                          const std::string& advertised_host,
                                                                          int advertised_port);

}  // namespace ketch::app
