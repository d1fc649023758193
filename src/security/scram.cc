#include "security/scram.h"

#include <charconv>

namespace ketch::security {

std::optional<hash_alg> scram_hash(std::string_view mechanism) {
    if (mechanism == "SCRAM-SHA-256") return hash_alg::sha256;
    if (mechanism == "SCRAM-SHA-512") return hash_alg::sha512;
    return std::nullopt;
}

meta::scram_credential scram_credential_from_salted(const std::string& user, const std::string& mechanism,
                                                    std::string_view salted_password, std::string salt,
                                                    int iterations) {
    hash_alg alg = scram_hash(mechanism).value();
    meta::scram_credential c;
    c.user = user;
    c.mechanism = mechanism;
    c.salt = std::move(salt);
    c.iterations = iterations;
    c.stored_key = digest(alg, hmac(alg, salted_password, "Client Key"));
    c.server_key = hmac(alg, salted_password, "Server Key");
    return c;
}

meta::scram_credential make_scram_credential(const std::string& user, const std::string& mechanism,
                                             std::string_view password, int iterations, std::string salt) {
    hash_alg alg = scram_hash(mechanism).value();
    if (salt.empty()) salt = random_bytes(32);
    std::string salted = pbkdf2(alg, password, salt, iterations);
    return scram_credential_from_salted(user, mechanism, salted, std::move(salt), iterations);
}

bool scram_password_matches(const meta::scram_credential& c, std::string_view password) {
    auto alg = scram_hash(c.mechanism);
    if (!alg || c.iterations <= 0) return false;
    std::string salted = pbkdf2(*alg, password, c.salt, c.iterations);
    return equal_constant_time(digest(*alg, hmac(*alg, salted, "Client Key")), c.stored_key);
}

std::optional<std::string> scram_decode_saslname(std::string_view name) {
    std::string out;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        if (c == ',') return std::nullopt;
        if (c != '=') {
            out += c;
            continue;
        }
        std::string_view esc = name.substr(i + 1, 2);
        if (esc == "2C")
            out += ',';
        else if (esc == "3D")
            out += '=';
        else
            return std::nullopt;
        i += 2;
    }
    if (out.empty()) return std::nullopt;
    return out;
}

scram_server::scram_server(std::string mechanism, const meta::credential_store& creds, nonce_source nonce,
                           token_credentials* tokens)
    : mechanism_(std::move(mechanism)),
      alg_(scram_hash(mechanism_).value()),
      creds_(creds),
      nonce_(std::move(nonce)),
      tokens_(tokens) {
    if (!nonce_) nonce_ = [] { return random_alnum(26); };
}

sasl_step scram_server::evaluate(std::string_view token) {
    switch (state_) {
        case state::first: return client_first(token);
        case state::final: return client_final(token);
        case state::done: break;
    }
    return sasl_step::fail({}, "token after the exchange ended");
}

namespace {
// Splits "k=v,k=v,...": returns the value of the attribute at `s` named `key`
// and advances past it and its comma.
std::optional<std::string_view> take_attr(std::string_view& s, char key) {
    if (s.size() < 2 || s[0] != key || s[1] != '=') return std::nullopt;
    auto comma = s.find(',');
    std::string_view v = s.substr(2, comma == std::string_view::npos ? std::string_view::npos : comma - 2);
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    return v;
}

bool printable_nonce(std::string_view n) {
    if (n.empty()) return false;
    for (char c : n)
        if (c < 0x21 || c > 0x7e || c == ',') return false;
    return true;
}
}  // namespace

sasl_step scram_server::client_first(std::string_view msg) {
    state_ = state::done;  // any failure ends the exchange
    // gs2-header: "n," [ "a=" saslname ] ","   (only "n": no channel binding)
    if (msg.substr(0, 2) != "n,") return sasl_step::fail({}, "client first message: gs2 header is not 'n'");
    std::string_view rest = msg.substr(2);
    std::string authzid;
    if (rest.substr(0, 2) == "a=") {
        auto comma = rest.find(',');
        if (comma == std::string_view::npos) return sasl_step::fail({}, "client first message: bad authzid");
        auto a = scram_decode_saslname(rest.substr(2, comma - 2));
        if (!a) return sasl_step::fail({}, "client first message: bad authzid");
        authzid = *a;
        rest = rest.substr(comma + 1);
    } else if (rest.substr(0, 1) == ",") {
        rest = rest.substr(1);
    } else {
        return sasl_step::fail({}, "client first message: bad gs2 header");
    }
    gs2_header_ = std::string(msg.substr(0, msg.size() - rest.size()));
    client_first_bare_ = std::string(rest);
    if (rest.substr(0, 2) == "m=") return sasl_step::fail({}, "client first message: mandatory extension");
    auto n = take_attr(rest, 'n');
    auto r = n ? take_attr(rest, 'r') : std::nullopt;
    if (!n || !r || !printable_nonce(*r)) return sasl_step::fail({}, "invalid SCRAM client first message format");
    auto user = scram_decode_saslname(*n);
    if (!user) return sasl_step::fail({}, "invalid SCRAM client first message format (user name)");
    user_ = *user;
    if (auto stop = find_credential(rest)) {
        if (stop->what == sasl_step::outcome::needs_read) state_ = state::first;  // evaluated again
        return *stop;
    }
    if (!authzid.empty() && authzid != *user)
        return sasl_step::fail(
            "Authentication failed: Client requested an authorization id that is different from username",
            "authzid differs from user");
    if (cred_.iterations < k_scram_min_iterations)
        return sasl_step::fail({}, "iterations " + std::to_string(cred_.iterations) + " below the minimum");
    nonce_all_ = std::string(*r) + nonce_();
    server_first_ = "r=" + nonce_all_ + ",s=" + base64_encode(cred_.salt) + ",i=" + std::to_string(cred_.iterations);
    state_ = state::final;
    return {sasl_step::outcome::challenge, server_first_, {}, {}, {}};
}

sasl_step scram_server::client_final(std::string_view msg) {
    state_ = state::done;
    // "c=" base64(gs2 header) ",r=" nonce [",ext=..."]* ",p=" base64(proof)
    auto p_at = msg.rfind(",p=");
    if (p_at == std::string_view::npos) return sasl_step::fail({}, "invalid SCRAM client final message format");
    std::string_view without_proof = msg.substr(0, p_at);
    auto proof = base64_decode(msg.substr(p_at + 3));
    std::string_view rest = without_proof;
    auto c = take_attr(rest, 'c');
    auto r = c ? take_attr(rest, 'r') : std::nullopt;
    if (!c || !r || !proof) return sasl_step::fail({}, "invalid SCRAM client final message format");
    auto binding = base64_decode(*c);
    if (!binding || *binding != gs2_header_) return sasl_step::fail({}, "channel binding differs from the gs2 header");
    if (*r != nonce_all_) return sasl_step::fail({}, "invalid client nonce in the final client message");
    std::string auth_message = client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
    std::string client_signature = hmac(alg_, cred_.stored_key, auth_message);
    std::string client_key = xor_bytes(*proof, client_signature);
    if (proof->size() != client_signature.size() || !equal_constant_time(digest(alg_, client_key), cred_.stored_key))
        return sasl_step::fail({}, "invalid client credentials");
    std::string server_signature = hmac(alg_, cred_.server_key, auth_message);
    sasl_step done{sasl_step::outcome::complete, "v=" + base64_encode(server_signature), {}, {}, user_};
    done.token_authenticated = token_auth_;
    done.credential_lifetime_ms = token_lifetime_ms_;
    return done;
}

}  // namespace ketch::security
