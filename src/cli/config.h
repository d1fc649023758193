// How the CLI reaches a cluster: bootstrap servers, security, timeouts, named
// the way Kafka clients name them (bootstrap.servers, security.protocol,
// sasl.mechanism, sasl.username, sasl.password, ssl.ca.location, ...).
//
// Where settings come from, later ones winning: a profile file (`ketch env
// --profile NAME` writes one; chosen by --profile, $KETCH_PROFILE, or the
// profile `ketch env` made current), $KAFKA_BOOTSTRAP_SERVERS, -X key=value,
// -b/--brokers.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/connection.h"

namespace ketch::cli {

struct client_config {
    std::vector<std::string> brokers;             // bootstrap.servers
    std::string security_protocol = "PLAINTEXT";  // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
    std::string sasl_mechanism = "PLAIN";         // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER
    std::string sasl_username;
    std::string sasl_password;
    std::string sasl_oauthbearer_token;  // OAUTHBEARER: a JWT, sent as is
    tls_settings tls;
    std::string client_id = "ketch-cli";
    std::chrono::milliseconds timeout{10000};  // request.timeout.ms

    bool uses_tls() const { return security_protocol == "SSL" || security_protocol == "SASL_SSL"; }
    bool uses_sasl() const { return security_protocol == "SASL_PLAINTEXT" || security_protocol == "SASL_SSL"; }
};

// Splits "a:1,b:2" into its servers (blanks dropped).
std::vector<std::string> split_list(std::string_view list, char sep = ',');

// Applies one client property ("security.protocol=SASL_SSL"). Returns an error
// message for a malformed pair, an unknown key or a bad value.
std::optional<std::string> apply_property(client_config& c, std::string_view key_value);

// The properties that describe `c` (what a profile file holds).
std::map<std::string, std::string> to_properties(const client_config& c);

// Java .properties text: key=value lines, '#' comments. Errors name the line.
std::optional<std::string> apply_properties_text(client_config& c, std::string_view text);

// Where profiles live: $KETCH_CONFIG_DIR, else $XDG_CONFIG_HOME/ketch, else ~/.config/ketch.
std::string config_dir();
std::string profile_path(const std::string& name);

}  // namespace ketch::cli
