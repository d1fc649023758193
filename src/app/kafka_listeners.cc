#include "app/kafka_listeners.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "security/tls_identity.h"

namespace ketch::app {

namespace {

std::string default_advertised_host(const std::string& host) {
    return host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host;
}

net::tls_options tls_of(const options& opt, std::string& self_signed) {
    if (opt.tls_cert.empty() != opt.tls_key.empty()) throw std::runtime_error("--tls-cert and --tls-key go together");
    net::tls_options tls;
    if (opt.tls_cert.empty()) {
        auto files = security::ensure_self_signed(std::filesystem::path(opt.data_dir) / "tls");
        tls.cert_file = files.cert.string();
        tls.key_file = files.key.string();
        self_signed = tls.cert_file;
    } else {
        tls.cert_file = opt.tls_cert;
        tls.key_file = opt.tls_key;
    }
    tls.client_ca_file = opt.tls_client_ca;
    tls.client_auth = !opt.tls_client_auth.empty() ? opt.tls_client_auth
                      : opt.tls_client_ca.empty()  ? "none"
                                                   : "required";
    return tls;
}

}  // namespace

kafka_listeners kafka_listeners::from(const options& opt, const resolved_listeners& lis) {
    kafka_listeners k;
    auto& s = k.server;
    s.listeners = lis.listeners;
    s.reactors = opt.reactors;
    s.max_request_bytes = opt.max_request_bytes;
    s.send_buffer_bytes = opt.socket_send_buffer_bytes;
    s.receive_buffer_bytes = opt.socket_receive_buffer_bytes;
    s.idle_timeout_ms = opt.connections_max_idle_ms;
    s.auth_timeout_ms = opt.auth_timeout_ms;
    s.failed_auth_delay_ms = opt.failed_auth_delay_ms;
    s.limits.max_connections = opt.max_connections;
    s.limits.max_connections_per_ip = opt.max_connections_per_ip;
    s.limits.close_when_full = opt.max_connections_policy == "close";
    s.limits.per_ip_overrides = parse_ip_overrides(opt.max_connections_per_ip_overrides);
    s.limits.max_connection_creation_rate = opt.max_connection_creation_rate;
    bool any_tls = false;
    for (auto& l : lis.listeners) any_tls |= net::uses_tls(l.protocol);
    if (any_tls) s.tls = tls_of(opt, k.self_signed_cert);
    return k;
}

broker::broker_config::endpoint advertised_endpoint(const resolved_listeners& lis, const net::listener_options& l,
                                                    uint16_t bound_port) {
    if (auto it = lis.advertised.find(l.name); it != lis.advertised.end()) return {it->second.first, it->second.second};
    return {default_advertised_host(l.host), bound_port};
}

std::vector<listener_endpoint> publish_endpoints(broker::broker_config& config, const resolved_listeners& lis,
                                                 const std::vector<uint16_t>& bound_ports) {
    std::vector<listener_endpoint> endpoints;
    for (size_t i = 0; i < lis.listeners.size(); ++i) {
        auto& l = lis.listeners[i];
        auto ep = advertised_endpoint(lis, l, bound_ports[i]);
        config.advertised[l.name] = ep;
        endpoints.push_back(
            {l.name, std::string(net::to_string(l.protocol)), l.host, bound_ports[i], ep.host, ep.port});
    }
    const auto& first = config.advertised[lis.listeners.front().name];
    config.advertised_host = first.host;
    config.advertised_port = first.port;
    return endpoints;
}

void write_listeners_file(const std::string& data_dir, const std::vector<listener_endpoint>& endpoints,
                          const std::string& tls_ca_file, const web_addresses& web) {
    nlohmann::json j = nlohmann::json::object();
    for (auto& e : endpoints)
        j["listeners"][e.name] = {{"protocol", e.protocol}, {"address", e.host + ":" + std::to_string(e.port)}};
    if (!tls_ca_file.empty()) j["tls_ca_file"] = tls_ca_file;
    if (!web.metrics.empty()) j["metrics"] = "http://" + web.metrics + "/metrics";
    if (!web.schema_registry.empty()) j["schema_registry"] = web.schema_registry;
    if (!web.console.empty()) j["console"] = web.console;
    write_file_atomically((std::filesystem::path(data_dir) / "listeners.json").string(), j.dump());
}

void write_file_atomically(const std::string& path, const std::string& content) {
    std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << content << "\n";
    }
    std::filesystem::rename(tmp, path);
}

}  // namespace ketch::app
