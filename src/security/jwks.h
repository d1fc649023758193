// A JSON Web Key Set (RFC 7517) of public keys that verify signed JWTs:
// RSA keys (RS256) and EC P-256 keys (ES256), on OpenSSL's EVP. Immutable
// once built, so any thread may verify with it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/evp.h>

#include "base/mutex.h"

namespace ketch::security {

struct jwk {
    std::string kid;  // may be empty
    std::string kty;  // "RSA" or "EC"
    std::string alg;  // may be empty (any algorithm of its type)
    std::shared_ptr<EVP_PKEY> key;
};

class jwk_set {
public:
    // Parses {"keys":[...]}; keys of other types, curves or uses ("use":"enc")
    // are skipped as jose4j skips what it cannot use. Throws
    // std::invalid_argument when the text is not a JWKS.
    static jwk_set parse(std::string_view json_text);

    // The key for a JWS header's `kid` and `alg` (RS256 or ES256): the one
    // with that kid, or without a kid in the header the first key that fits
    // the algorithm (jose4j's VerificationJwkSelector). nullptr when none
    // does; `why` says so.
    const jwk* find(const std::string& kid, const std::string& alg, std::string& why) const;
    size_t size() const { return keys_.size(); }

private:
    std::vector<jwk> keys_;
};

// The key set in use, replaced whole when a JWKS URL is fetched again.
class jwks_keys {
public:
    // A token named a kid the set lacks: the owner may fetch its URL again
    // (Kafka's RefreshingHttpsJwks). Runs the owner's hook under the lock, so
    // clearing the hook (with an empty function) waits for a call in progress.
    void request_refresh() const {
        lock_guard lock(mu_);
        if (refresh_) refresh_();
    }
    void on_refresh_request(std::function<void()> hook) {
        lock_guard lock(mu_);
        refresh_ = std::move(hook);
    }
    std::shared_ptr<const jwk_set> get() const {
        lock_guard lock(mu_);
        return set_;
    }
    void set(std::shared_ptr<const jwk_set> s) {
        lock_guard lock(mu_);
        set_ = std::move(s);
    }

private:
    mutable mutex mu_;
    std::shared_ptr<const jwk_set> set_ GUARDED_BY(mu_);
    std::function<void()> refresh_ GUARDED_BY(mu_);
};

// The JWS algorithms ketch verifies.
bool supported_jws_alg(const std::string& alg);
// Whether `signature` (JWS form: PKCS#1 v1.5 for RS256, raw r||s for ES256)
// signs `input` with `key`.
bool verify_jws(const std::string& alg, EVP_PKEY* key, std::string_view input, std::string_view signature);

}  // namespace ketch::security
