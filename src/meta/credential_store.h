// meta::credential_store: SCRAM credentials per (user, mechanism), kept the
// way RFC 5802 lets a server keep them: salt, StoredKey, ServerKey and the
// iteration count. A password is never stored, neither is the salted password.
//
// Contract: a call that returns ok is durable; calls may come from any thread.
// `find` answers from memory (it runs on the network threads during a login),
// but for a cache's read-through (then find_cached answers from memory).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "meta/store.h"

namespace ketch::meta {

struct scram_credential {
    std::string user;
    std::string mechanism;   // "SCRAM-SHA-256" or "SCRAM-SHA-512"
    std::string salt;        // raw bytes
    std::string stored_key;  // H(ClientKey), raw bytes
    std::string server_key;  // HMAC(SaltedPassword, "Server Key"), raw bytes
    int32_t iterations = 0;
};

class credential_store {
public:
    virtual ~credential_store() = default;
    virtual std::optional<scram_credential> find(const std::string& user, const std::string& mechanism) const = 0;
    // find from memory alone: never a read of a store behind a cache (a SASL
    // step tries it on the network thread first). The default is find, for
    // the stores that hold everything in memory.
    virtual std::optional<scram_credential> find_cached(const std::string& user, const std::string& mechanism) const {
        return find(user, mechanism);
    }
    // Every credential, sorted by user then mechanism.
    virtual std::vector<scram_credential> list() const = 0;
    // Inserts or replaces the credential of (user, mechanism).
    virtual status<store_error> upsert(const scram_credential& c) = 0;
    // Removes (user, mechanism); returns false when there was none.
    virtual result<bool, store_error> remove(const std::string& user, const std::string& mechanism) = 0;
};

}  // namespace ketch::meta
