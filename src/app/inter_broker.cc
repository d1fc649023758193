#include "app/inter_broker.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "app/inter_broker_token_endpoint.h"
#include "security/authorizer.h"

namespace ketch::app {

namespace {

std::string env_or(const std::string& given, const char* var) {
    if (!given.empty()) return given;
    const char* v = std::getenv(var);
    return v ? std::string(v) : std::string();
}

// A secret: the file's first line (a trailing newline is not part of it),
// else the environment.
std::string secret_of(const std::string& file, const char* flag, const char* var) {
    if (file.empty()) return env_or({}, var);
    std::ifstream in(file);
    if (!in) throw std::runtime_error(std::string(flag) + ": cannot read " + file);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

std::string password_of(const options& opt) {
    return secret_of(opt.inter_broker_sasl_password_file, "--inter-broker-sasl-password-file",
                     "KETCH_INTER_BROKER_SASL_PASSWORD");
}

// OAUTHBEARER only with a token to log in with.
bool loggable(const options& opt, const std::string& m) {
    return m == "PLAIN" || m == "SCRAM-SHA-256" || m == "SCRAM-SHA-512" ||
           (m == "OAUTHBEARER" &&
            (!opt.inter_broker_oauthbearer_token_file.empty() || !opt.inter_broker_oauthbearer_token_endpoint.empty()));
}

// The token file's, or the token endpoint's.
std::shared_ptr<inter_broker_jwt> jwt_of(const options& opt) {
    if (!opt.inter_broker_oauthbearer_token_file.empty() && !opt.inter_broker_oauthbearer_token_endpoint.empty())
        throw std::runtime_error(
            "--inter-broker-oauthbearer-token-file and --inter-broker-oauthbearer-token-endpoint exclude each other");
    if (!opt.inter_broker_oauthbearer_token_file.empty())
        return std::make_shared<inter_broker_token>(opt.inter_broker_oauthbearer_token_file, opt.oauthbearer_sub_claim);
    token_endpoint_settings s;
    s.url = opt.inter_broker_oauthbearer_token_endpoint;
    s.client_id = env_or(opt.inter_broker_oauthbearer_client_id, "KETCH_INTER_BROKER_OAUTHBEARER_CLIENT_ID");
    s.client_secret =
        secret_of(opt.inter_broker_oauthbearer_client_secret_file, "--inter-broker-oauthbearer-client-secret-file",
                  "KETCH_INTER_BROKER_OAUTHBEARER_CLIENT_SECRET");
    s.scope = opt.inter_broker_oauthbearer_scope;
    s.ca_file = opt.inter_broker_oauthbearer_tls_ca;
    return std::make_shared<inter_broker_token_endpoint>(std::move(s), opt.oauthbearer_sub_claim);
}

std::string mechanism_of(const options& opt) {
    if (!opt.inter_broker_sasl_mechanism.empty()) {
        if (!loggable(opt, opt.inter_broker_sasl_mechanism))
            throw std::runtime_error("--inter-broker-sasl-mechanism " + opt.inter_broker_sasl_mechanism +
                                     ": brokers log in with PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER "
                                     "(with --inter-broker-oauthbearer-token-file or -token-endpoint)");
        return opt.inter_broker_sasl_mechanism;
    }
    for (auto& m : cli::split_list(opt.sasl_mechanisms))
        if (loggable(opt, m)) return m;
    throw std::runtime_error(
        "--inter-broker-sasl-mechanism: --sasl-mechanisms enables none of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 "
        "(nor OAUTHBEARER with --inter-broker-oauthbearer-token-file or -token-endpoint)");
}

// The login: a token file's or a token endpoint's JWT (its subject the
// user), else a username and a password.
void login_of(const options& opt, const listener_endpoint& e, cli::client_config& c,
              std::shared_ptr<inter_broker_jwt>& token) {
    if (c.sasl_mechanism == "OAUTHBEARER") {
        token = jwt_of(opt);
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
                                 "$KETCH_INTER_BROKER_SASL_PASSWORD), or --inter-broker-oauthbearer-token-file "
                                 "or -token-endpoint");
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
        throw std::runtime_error(
            (out.token ? out.token->flag() + ": the token's subject " : "--inter-broker-sasl-username ") +
            c.sasl_username +
            ": with --tenancy the brokers' user must be one of --super-users (any other user "
            "belongs to a tenant, and its inter-broker calls would be scoped to it)");
    return out;
}

}  // namespace ketch::app
