#include "app/basic_auth.h"

#include "security/crypto.h"
#include "security/scram.h"

namespace ketch::app {

std::optional<http::response> basic_auth::operator()(http::request& req) {
    auto h = req.header("authorization");
    if (!h) {
        if (creds_.list().empty()) {  // no SASL users: the service is open
            req.principal = "User:ANONYMOUS";
            return std::nullopt;
        }
        return unauthorized();
    }
    if (h->rfind("Basic ", 0) != 0) return unauthorized();
    auto decoded = security::base64_decode(h->substr(6));
    if (!decoded) return unauthorized();
    auto colon = decoded->find(':');
    if (colon == std::string::npos) return unauthorized();
    std::string user = decoded->substr(0, colon), password = decoded->substr(colon + 1);
    if (!verified(user, password)) return unauthorized();
    req.principal = "User:" + user;
    return std::nullopt;
}

http::response basic_auth::unauthorized() const {
    auto r = unauthorized_();
    r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"ketch\"");
    return r;
}

bool basic_auth::verified(const std::string& user, const std::string& password) {
    for (const char* mech : {"SCRAM-SHA-256", "SCRAM-SHA-512"}) {
        auto c = creds_.find(user, mech);
        if (!c) continue;
        auto key = security::digest(security::hash_alg::sha256, user + '\0' + password + '\0' + c->stored_key);
        {
            std::lock_guard l(mu_);
            if (ok_.count(key)) return true;
        }
        if (!security::scram_password_matches(*c, password)) return false;
        std::lock_guard l(mu_);
        if (ok_.size() > 10000) ok_.clear();
        ok_.insert(key);
        return true;
    }
    return false;
}

}  // namespace ketch::app
