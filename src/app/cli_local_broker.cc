#include "app/cli_local_broker.h"

#include "app/kafka_listeners.h"
#include "app/listeners.h"
#include "app/options.h"
#include "cli/config.h"

namespace ketch::app {

cli::local_broker local_broker_settings(const std::vector<std::string>& broker_args) {
    std::vector<std::string> args{"ketch"};
    args.insert(args.end(), broker_args.begin(), broker_args.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    options opt = parse_options(int(argv.size()), argv.data());
    resolved_listeners lis = resolve_listeners(opt);  // throws std::invalid_argument
    const auto& first = lis.listeners.front();
    auto ep = advertised_endpoint(lis, first, first.port);
    cli::local_broker out;
    out.bootstrap = ep.host + ":" + std::to_string(ep.port);
    switch (first.protocol) {
        case net::security_protocol::plaintext: out.security_protocol = "PLAINTEXT"; break;
        case net::security_protocol::ssl: out.security_protocol = "SSL"; break;
        case net::security_protocol::sasl_plaintext: out.security_protocol = "SASL_PLAINTEXT"; break;
        case net::security_protocol::sasl_ssl: out.security_protocol = "SASL_SSL"; break;
    }
    out.sasl_mechanisms = cli::split_list(opt.sasl_mechanisms);
    // A self-signed --tls-cert is its own CA.
    out.ca_location = opt.tls_cert;
    return out;
}

}  // namespace ketch::app
