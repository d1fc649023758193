// Cluster mode: how this broker reaches the others as a Kafka client (today:
// AddPartitionsToTxn v5 to another broker's transaction coordinator,
// remote_txns.h). Kafka's inter.broker.listener.name and
// sasl.mechanism.inter.broker.protocol: the listener whose advertised
// addresses are dialled, and the TLS trust and SASL login the call uses
// there (cli::client's, the CLI's own client). docs/cluster.md
// "Inter-broker calls".
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/broker_properties.h"
#include "app/inter_broker_token.h"
#include "app/options.h"
#include "cli/config.h"

namespace ketch::app {

struct inter_broker_config {
    // The listener's name; nullopt: none chosen (no --inter-broker-listener
    // and no PLAINTEXT listener), so no call is made.
    std::optional<std::string> listener;
    // security.protocol, TLS trust and SASL credentials of the calls
    // (brokers are filled in per call).
    cli::client_config client;
    // OAUTHBEARER: the token file (read again for each new connection) or
    // the token endpoint (asked again before the token expires);
    // client.sasl_oauthbearer_token is the token got at start.
    std::shared_ptr<inter_broker_jwt> token;
    // "SASL_SSL as User:broker (SCRAM-SHA-512)", for logs.
    std::string describe() const;
};

// From --inter-broker-* (docs/cluster.md) and the environment
// (KETCH_INTER_BROKER_SASL_USERNAME, KETCH_INTER_BROKER_SASL_PASSWORD).
// Throws std::runtime_error naming the flag when the settings cannot work:
// an unknown listener, a SASL listener without a username or password, a
// mechanism the client cannot log in with, an unreadable password file, an
// OAUTHBEARER token file that cannot log in (unreadable, not a JWT, expired).
inter_broker_config inter_broker_config_of(const options& opt, const std::vector<listener_endpoint>& endpoints);

}  // namespace ketch::app
