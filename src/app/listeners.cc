#include "app/listeners.h"

#include <stdexcept>

#include "base/split.h"

namespace ketch::app {

resolved_listeners resolve_listeners(const options& o) {
    resolved_listeners out;
    std::vector<net::listener_options> named;
    for (auto& spec : o.listeners) {
        // NAME=PROTO://host:port
        auto eq = spec.find('=');
        auto scheme = spec.find("://");
        if (eq == std::string::npos || scheme == std::string::npos || scheme < eq)
            throw std::invalid_argument("--listener wants NAME=PROTO://host:port, got '" + spec + "'");
        net::listener_options l;
        l.name = spec.substr(0, eq);
        if (!net::parse_security_protocol(spec.substr(eq + 1, scheme - eq - 1), l.protocol))
            throw std::invalid_argument("unknown security protocol in '" + spec +
                                        "' (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)");
        std::tie(l.host, l.port) = split_host_port(spec.substr(scheme + 3));
        if (l.host.empty()) l.host = "0.0.0.0";
        for (auto& n : named)
            if (n.name == l.name) throw std::invalid_argument("listener " + l.name + " given twice");
        named.push_back(l);
    }
    bool plaintext_named = false;
    for (auto& n : named) plaintext_named |= n.name == "PLAINTEXT";
    if (!plaintext_named) {
        net::listener_options def;
        std::tie(def.host, def.port) = split_host_port(o.listen);
        out.listeners.push_back(def);
    }
    for (auto& n : named) out.listeners.push_back(n);

    for (auto& a : o.advertised_listeners) {
        auto eq = a.find('=');
        std::string name = eq == std::string::npos ? out.listeners.front().name : a.substr(0, eq);
        auto [host, port] = split_host_port(eq == std::string::npos ? a : a.substr(eq + 1));
        bool known = false;
        for (auto& l : out.listeners) known |= l.name == name;
        if (!known) throw std::invalid_argument("--advertised-listener names no listener: '" + a + "'");
        out.advertised[name] = {host, port};
    }
    return out;
}

std::map<std::string, int32_t> parse_ip_overrides(const std::string& s) {
    std::map<std::string, int32_t> out;
    for (const auto& item : split_nonempty(s, ',')) {
        auto colon = item.rfind(':');
        if (colon == std::string::npos) throw std::invalid_argument("override wants ip:count, got '" + item + "'");
        out[item.substr(0, colon)] = std::stoi(item.substr(colon + 1));
    }
    return out;
}

}  // namespace ketch::app
