#include "cli/config.h"

#include <cstdlib>
#include <sstream>

namespace ketch::cli {

namespace {
std::string_view trim_spaces(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}
std::string upper(std::string_view s) {
    std::string r(s);
    for (auto& c : r) c = char(std::toupper(static_cast<unsigned char>(c)));
    return r;
}
}  // namespace

std::vector<std::string> split_list(std::string_view list, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(sep, start);
        if (end == std::string_view::npos) end = list.size();
        auto item = trim_spaces(list.substr(start, end - start));
        if (!item.empty()) out.emplace_back(item);
        start = end + 1;
    }
    return out;
}

std::optional<std::string> apply_property(client_config& c, std::string_view kv) {
    auto eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) return "expected key=value, got '" + std::string(kv) + "'";
    std::string key(trim_spaces(kv.substr(0, eq)));
    std::string value(trim_spaces(kv.substr(eq + 1)));
    if (key == "bootstrap.servers" || key == "metadata.broker.list") {
        c.brokers = split_list(value);
    } else if (key == "security.protocol") {
        auto v = upper(value);
        if (v != "PLAINTEXT" && v != "SSL" && v != "SASL_PLAINTEXT" && v != "SASL_SSL")
            return "security.protocol must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL, not '" + value + "'";
        c.security_protocol = v;
    } else if (key == "sasl.mechanism" || key == "sasl.mechanisms") {
        auto v = upper(value);
        if (v != "PLAIN" && v != "SCRAM-SHA-256" && v != "SCRAM-SHA-512" && v != "OAUTHBEARER")
            return "sasl.mechanism must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER, not '" + value + "'";
        c.sasl_mechanism = v;
    } else if (key == "sasl.username") {
        c.sasl_username = value;
    } else if (key == "sasl.password") {
        c.sasl_password = value;
    } else if (key == "sasl.oauthbearer.token") {
        c.sasl_oauthbearer_token = value;
    } else if (key == "ssl.ca.location") {
        c.tls.ca_location = value;
    } else if (key == "ssl.certificate.location") {
        c.tls.certificate_location = value;
    } else if (key == "ssl.key.location") {
        c.tls.key_location = value;
    } else if (key == "ssl.endpoint.identification.algorithm") {
        if (value != "none" && value != "https" && !value.empty())
            return "ssl.endpoint.identification.algorithm must be https or none";
        c.tls.verify_hostname = value == "https";
    } else if (key == "client.id") {
        c.client_id = value;
    } else if (key == "request.timeout.ms" || key == "socket.timeout.ms") {
        try {
            size_t used = 0;
            long ms = std::stol(value, &used);
            if (used != value.size() || ms <= 0) throw std::invalid_argument(value);
            c.timeout = std::chrono::milliseconds(ms);
        } catch (const std::exception&) {
            return key + " must be a positive number of milliseconds, not '" + value + "'";
        }
    } else {
        return "unknown client property '" + key +
               "' (known: bootstrap.servers, security.protocol, sasl.mechanism, sasl.username, sasl.password, "
               "sasl.oauthbearer.token, "
               "ssl.ca.location, ssl.certificate.location, ssl.key.location, "
               "ssl.endpoint.identification.algorithm, client.id, request.timeout.ms)";
    }
    return std::nullopt;
}

std::map<std::string, std::string> to_properties(const client_config& c) {
    std::map<std::string, std::string> p;
    std::string servers;
    for (auto& b : c.brokers) servers += (servers.empty() ? "" : ",") + b;
    p["bootstrap.servers"] = servers;
    p["security.protocol"] = c.security_protocol;
    if (c.uses_sasl()) {
        p["sasl.mechanism"] = c.sasl_mechanism;
        if (!c.sasl_username.empty()) p["sasl.username"] = c.sasl_username;
        if (!c.sasl_password.empty()) p["sasl.password"] = c.sasl_password;
    }
    if (c.uses_tls() && !c.tls.ca_location.empty()) p["ssl.ca.location"] = c.tls.ca_location;
    return p;
}

std::optional<std::string> apply_properties_text(client_config& c, std::string_view text) {
    std::istringstream in{std::string(text)};
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        auto t = trim_spaces(line);
        if (t.empty() || t.front() == '#' || t.front() == '!') continue;
        if (auto err = apply_property(c, t)) return "line " + std::to_string(n) + ": " + *err;
    }
    return std::nullopt;
}

std::string config_dir() {
    if (const char* d = std::getenv("KETCH_CONFIG_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/ketch";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : ".") + "/.config/ketch";
}

std::string profile_path(const std::string& name) { return config_dir() + "/" + name + ".properties"; }

}  // namespace ketch::cli
