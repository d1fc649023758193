// HTTP Basic against the broker's SCRAM credentials, for the broker's HTTP
// services (schema registry, console): with no SASL user the service is open
// (principal User:ANONYMOUS); otherwise a request needs a user's password.
// A SCRAM check costs a PBKDF2 (4096 rounds): a verified (user, password) is
// remembered by its digest together with the stored key it was verified
// against, so a changed credential is checked again.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "http/message.h"
#include "meta/credential_store.h"

namespace ketch::app {

class basic_auth {
public:
    // `unauthorized` makes the 401 body (the WWW-Authenticate header is added).
    basic_auth(meta::credential_store& creds, std::function<http::response()> unauthorized)
        : creds_(creds), unauthorized_(std::move(unauthorized)) {}

    // nullopt: accepted (req.principal set); else the 401 to answer.
    std::optional<http::response> operator()(http::request& req);

    // Whether any SASL user exists (a login is then required).
    bool has_users() const { return !creds_.list().empty(); }

private:
    http::response unauthorized() const;
    bool verified(const std::string& user, const std::string& password);

    meta::credential_store& creds_;
    std::function<http::response()> unauthorized_;
    std::mutex mu_;
    std::set<std::string> ok_;
};

}  // namespace ketch::app
