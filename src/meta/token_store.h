// meta::token_store: delegation tokens (KIP-48), kept as Kafka's
// DelegationTokenRecord keeps them: the token id, owner, requester, renewers
// and the three timestamps. The HMAC is not stored: it is recomputed from the
// token id and delegation.token.secret.key, so a changed secret invalidates
// every token (as in Kafka).
//
// Contract: a call that returns ok is durable; calls may come from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "meta/store.h"

namespace ketch::meta {

struct delegation_token {
    std::string token_id;
    std::string owner;                  // principal, "User:alice"
    std::string requester;              // who created it, "User:admin"
    std::vector<std::string> renewers;  // principals
    int64_t issue_ms = 0;
    int64_t expiry_ms = 0;
    int64_t max_ms = 0;
};

class token_store {
public:
    virtual ~token_store() = default;
    // Every token, in no particular order.
    virtual result<std::vector<delegation_token>, store_error> load() = 0;
    // The token of that id, if stored (a login's read-through in cluster
    // mode: security::delegation_tokens::read_misses_through). By default
    // from load(); a shared store reads the one row.
    virtual result<std::optional<delegation_token>, store_error> load_one(const std::string& token_id) {
        auto all = load();
        if (!all.ok()) return failure{all.error()};
        for (auto& t : *all)
            if (t.token_id == token_id) return std::optional(std::move(t));
        return std::optional<delegation_token>();
    }
    // Inserts or replaces the token of that id.
    virtual status<store_error> upsert(const delegation_token& t) = 0;
    virtual status<store_error> remove(const std::string& token_id) = 0;
    // The sweep's removal: removes the token of that id only if the stored
    // one is past its expiry or maximum at `now_ms`; false when it is not
    // (another broker renewed it, and this one has not heard yet) or is gone.
    // By default the cache is the store's only writer (one broker), so what
    // the sweep saw expired is: remove() it.
    virtual result<bool, store_error> remove_expired(const std::string& token_id, int64_t now_ms) {
        auto st = remove(token_id);
        if (!st.ok()) return failure{st.error()};
        return true;
    }
    // Moves the expiry of the token of that id; false when none is stored
    // (another broker removed it meanwhile: a renewal must not bring it back).
    virtual result<bool, store_error> set_expiry(const std::string& token_id, int64_t expiry_ms) = 0;
};

// An in-memory token store for tests.
class memory_token_store final : public token_store {
public:
    result<std::vector<delegation_token>, store_error> load() override { return tokens_; }
    status<store_error> upsert(const delegation_token& t) override {
        std::erase_if(tokens_, [&](auto& x) { return x.token_id == t.token_id; });
        tokens_.push_back(t);
        return ok_v;
    }
    status<store_error> remove(const std::string& token_id) override {
        std::erase_if(tokens_, [&](auto& x) { return x.token_id == token_id; });
        return ok_v;
    }
    // As the shared store's (tests run two brokers' caches over one).
    result<bool, store_error> remove_expired(const std::string& token_id, int64_t now_ms) override {
        return std::erase_if(tokens_, [&](auto& x) {
                   return x.token_id == token_id && (x.max_ms < now_ms || x.expiry_ms < now_ms);
               }) > 0;
    }
    result<bool, store_error> set_expiry(const std::string& token_id, int64_t expiry_ms) override {
        for (auto& t : tokens_)
            if (t.token_id == token_id) {
                t.expiry_ms = expiry_ms;
                return true;
            }
        return false;
    }

private:
    std::vector<delegation_token> tokens_;
};

}  // namespace ketch::meta
