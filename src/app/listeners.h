// Resolves the listener flags (--listen, --listener, --advertised-listener)
// into the network layer's listener list and the advertised addresses.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/options.h"
#include "net/server_options.h"

namespace ketch::app {

struct resolved_listeners {
    std::vector<net::listener_options> listeners;  // the --listen one first
    // listener name -> advertised host:port given by a flag (port may be
    // filled in from the bound port afterwards)
    std::map<std::string, std::pair<std::string, int>> advertised;
};

// Throws std::invalid_argument on a malformed or duplicated listener.
resolved_listeners resolve_listeners(const options& o);

// "ip:n,ip:n" -> map; throws std::invalid_argument.
std::map<std::string, int32_t> parse_ip_overrides(const std::string& s);

}  // namespace ketch::app
