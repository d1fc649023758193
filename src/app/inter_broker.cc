#include "app/inter_broker.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "security/authorizer.h"

namespace ketch::app {

namespace {

std::string env_or(const std::string& given, const char* var) {
    if (!given.empty()) return given;
    const char* v = std::getenv(var);
    return v ? std::string(v) : std::string();
}

// The password: the file's first line (a trailing newline is not part of it),
// else the environment.
std::string password_of(const options& opt) {
    if (opt.inter_broker_sasl_password_file.empty()) return env_or({}, "KETCH_INTER_BROKER_SASL_PASSWORD");
    std::ifstream in(opt.inter_broker_sasl_password_file);
    if (!in)
        throw std::runtime_error("--inter-broker-sasl-password-file: cannot read " +
                                 opt.inter_broker_sasl_password_file);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

// OAUTHBEARER only with a token to log in with.
bool loggable(const options& opt, const std::string& m) {
    return m == "PLAIN" || m == "SCRAM-SHA-256" || m == "SCRAM-SHA-512" ||
           (m == "OAUTHBEARER" && !opt.inter_broker_oauthbearer_token_file.empty());
}

std::string mechanism_of(const options& opt) {
    if (!opt.inter_broker_sasl_mechanism.empty()) {
        if (!loggable(opt, opt.inter_broker_sasl_mechanism))
            throw std::runtime_error("--inter-broker-sasl-mechanism " + opt.inter_broker_sasl_mechanism +
                                     ": brokers log in with PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER "
                                     "(with --inter-broker-oauthbearer-token-file)");
        return opt.inter_broker_sasl_mechanism;
    }
    for (auto& m : cli::split_list(opt.sasl_mechanisms))
        if (loggable(opt, m)) return m;
    throw std::runtime_error(
        "--inter-broker-sasl-mechanism: --sasl-mechanisms enables none of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 "
        "(nor OAUTHBEARER with --inter-broker-oauthbearer-token-file)");
}

// The login: a token file's JWT (its subject the user), else a username and a password.
void login_of(const options& opt, const listener_endpoint& e, cli::client_config& c,
              std::shared_ptr<inter_broker_token>& token) {
    if (c.sasl_mechanism == "OAUTHBEARER") {
        token =
            std::make_shared<inter_broker_token>(opt.inter_broker_oauthbearer_token_file, opt.oauthbearer_sub_claim);
        c.sasl_username = token->subject();
        c.sasl_oauthbearer_token = token->current();
        return;
    }
    c.sasl_username = env_or(opt.inter_broker_sasl_username, "KETCH_INTER_BROKER_SASL_USERNAME");
    c.sasl_password = password_of(opt);
    if (c.sasl_username.empty() || c.sasl_password.empty())
        throw std::runtime_error("inter-broker listener " + e.name + " is " + e.protocol +
                                 ": give the brokers' login with --inter-broker-sasl-username (or "
                                 "$KETCH_INTER_BROKER_SASL_USERNAME) and --inter-broker-sasl-password-file (or "
                                 "$KETCH_INTER_BROKER_SASL_PASSWORD), or --inter-broker-oauthbearer-token-file");
}

const listener_endpoint* chosen(const options& opt, const std::vector<listener_endpoint>& endpoints) {
    for (auto& e : endpoints)
        if (opt.inter_broker_listener.empty() ? e.protocol == "PLAINTEXT" : e.name == opt.inter_broker_listener)
            return &e;
    if (opt.inter_broker_listener.empty()) return nullptr;
    std::string names;
    for (auto& e : endpoints) names += (names.empty() ? "" : ", ") + e.name;
    throw std::runtime_error("--inter-broker-listener " + opt.inter_broker_listener +
                             ": no such listener (this broker's: " + names + ")");
}

}  // namespace

std::string inter_broker_config::describe() const {
    std::string out = client.security_protocol + " listener " + listener.value_or("(none)");
    if (client.uses_sasl()) out += " as User:" + client.sasl_username + " (" + client.sasl_mechanism + ")";
    return out;
}

inter_broker_config inter_broker_config_of(const options& opt, const std::vector<listener_endpoint>& endpoints) {
    inter_broker_config out;
    auto* e = chosen(opt, endpoints);
    if (!e) return out;
    out.listener = e->name;
    auto& c = out.client;
    c.security_protocol = e->protocol;
    c.client_id = "ketch-broker";
    if (c.uses_tls()) {
        c.tls.enabled = true;
        c.tls.ca_location = opt.inter_broker_tls_ca.empty() ? opt.tls_client_ca : opt.inter_broker_tls_ca;
        c.tls.certificate_location = opt.inter_broker_tls_cert;
        c.tls.key_location = opt.inter_broker_tls_key;
    }
    if (!c.uses_sasl()) return out;
    c.sasl_mechanism = mechanism_of(opt);
    login_of(opt, *e, c, out.token);
    // Under tenancy any principal but a super user belongs to a tenant
    // (tenant/directory.cc resolve), and a call scoped to one tenant cannot
    // name another's topics: every forwarded transaction would fail.
    if (opt.tenancy && !security::parse_super_users(opt.super_users).contains("User:" + c.sasl_username))
        throw std::runtime_error((out.token ? "--inter-broker-oauthbearer-token-file: the token's subject "
                                            : "--inter-broker-sasl-username ") +
                                 c.sasl_username +
                                 ": with --tenancy the brokers' user must be one of --super-users (any other user "
                                 "belongs to a tenant, and its inter-broker calls would be scoped to it)");
    return out;
}

}  // namespace ketch::app
