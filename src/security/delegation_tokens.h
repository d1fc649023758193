// Delegation tokens (KIP-48) as Kafka 4.3's controller keeps them
// (DelegationTokenControlManager, DelegationTokenCache): create, renew,
// expire, list and sweep, over a durable meta::token_store and a cache that
// also answers SCRAM logins by token (token_credentials).
//
// HMAC = HmacSHA512(key = delegation.token.secret.key, data = token id). Without
// a secret the manager is disabled: every operation answers
// DELEGATION_TOKEN_AUTH_DISABLED. Principals are "Type:name" strings.
//
// Threads: any. Lookups (logins by token, list) share a lock; changes (and
// the sweep, reloads and read-throughs) are serialised by a lock of their
// own, held across the store's I/O, and take the lookups' lock only to swap
// memory once the write committed: a change is durable before anyone sees
// it and visible only if the write succeeded, and a lookup never waits for
// the store (cluster mode: for PostgreSQL, on a reactor thread).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/read_through_limit.h"
#include "meta/token_store.h"
#include "security/token_login.h"

namespace ketch::security {

struct token_config {
    std::string secret_key;               // delegation.token.secret.key; empty: tokens disabled
    int64_t max_lifetime_ms = 604800000;  // delegation.token.max.lifetime.ms (7 days)
    int64_t expiry_time_ms = 86400000;    // delegation.token.expiry.time.ms (1 day)
};

// HmacSHA512(secret, token id), raw bytes (DelegationTokenManager.createHmac).
std::string token_hmac(const std::string& secret_key, const std::string& token_id);
// "Type:name" -> {"Type", "name"}; no ':' -> {"", whole}.
std::pair<std::string, std::string> split_principal(const std::string& principal);

class delegation_tokens final : public token_credentials {
public:
    using wall_clock = std::function<int64_t()>;  // ms since the epoch

    delegation_tokens(token_config cfg, meta::token_store& store, wall_clock now = {});
    // Reads every stored token into the cache.
    status<meta::store_error> load();
    bool enabled() const { return !cfg_.secret_key.empty(); }

    struct described {
        meta::delegation_token token;
        std::string hmac;  // raw bytes
    };
    struct create_result {
        int16_t error = 0;
        described token;
    };
    // max_lifetime_ms <= 0: the configured maximum; renewers must be "User:" principals.
    create_result create(const std::string& owner, const std::string& requester,
                         const std::vector<std::string>& renewers, int64_t max_lifetime_ms);

    struct expiry_result {
        int16_t error = 0;
        int64_t expiry_ms = 0;
    };
    // By the owner or a renewer: the expiry moves to now + min(period, expiry.time.ms), capped at max.
    expiry_result renew(const std::string& principal, const std::string& hmac, int64_t period_ms);
    // By the owner or a renewer: a negative period removes the token at once,
    // otherwise the expiry becomes now + period, capped at max.
    expiry_result expire(const std::string& principal, const std::string& hmac, int64_t period_ms);

    // Every token in the cache (expired ones too, until swept), by token id.
    std::vector<described> list() const;
    // Removes tokens past their expiry or maximum; returns how many. One the
    // store holds renewed (by another broker, not heard yet) stays, and is
    // read again into the cache.
    size_t sweep();
    // Removes at once every token whose owner ("User:alice") `owned` accepts
    // (a deleted tenant's, docs/tenancy.md "Administration"): later logins
    // with them are refused. Returns how many; a token the store could not
    // remove stays (counted in `left`).
    struct removal {
        size_t removed = 0, left = 0;
    };
    removal remove_owned(const std::function<bool(const std::string& owner)>& owned);

    // The login of a live token. With read_misses_through, a token id the
    // cache lacks (or holds expired) is read from the store first.
    std::optional<token_login> find(const std::string& token_id, const std::string& mechanism) override;
    // The cache alone (a token the cache holds expired is not found).
    std::optional<token_login> find_cached(const std::string& token_id, const std::string& mechanism) const override;

    // Cluster mode (docs/cluster.md "Caches and read-through"): a login by a
    // token id the cache lacks, or holds expired, reads that token from the
    // store before it is refused (another broker may have created or renewed
    // it, and this one not heard the NOTIFY yet), when `limit` allows;
    // `found(token_id)` is told of each token so read (the broker logs it).
    // Set once, before logins.
    void read_misses_through(std::unique_ptr<read_through_limit> limit,
                             std::function<void(const std::string& token_id)> found);

private:
    struct entry {
        meta::delegation_token token;
        std::string hmac;
        std::map<std::string, meta::scram_credential> scram;  // by mechanism
    };
    entry make_entry(meta::delegation_token t) const;
    // load()'s read: every stored token, with the entry of those cached kept.
    result<std::map<std::string, entry>, meta::store_error> read_all() const;
    // read_through's read: the stored token of that id, if any, as an entry.
    std::optional<entry> read_one(const std::string& token_id) const;
    // read_misses_through's read: true when the store held the token (now cached).
    bool read_through(const std::string& token_id);
    // Callers hold change_mu_ (they read the cache without mu_).
    const entry* by_hmac(const std::string& hmac) const;
    expiry_result store_expiry(const entry& e, int64_t expiry_ms);
    // Removes from the store (by `remove`: true when it did), then from the
    // cache, every token `doomed` accepts; the ids the store kept go to `kept`.
    removal remove_where(const std::function<bool(const entry&)>& doomed,
                         const std::function<result<bool, meta::store_error>(const std::string&)>& remove,
                         std::vector<std::string>* kept = nullptr);
    // Callers hold change_mu_ and mu_ (unique): the token leaves the cache.
    void forget(const std::string& token_id);
    // Callers hold change_mu_: the token leaves the cache (under mu_), counted
    // as a local write (a read racing it is made again: read_unraced).
    void forget_written(const std::string& token_id);
    // renew and expire: the token of `hmac` (refused when tokens are off or
    // it is not found), then change(token, now) under the change lock.
    template <class Change>
    expiry_result change_expiry(const std::string& hmac, Change&& change);

    token_config cfg_;
    meta::token_store& store_;
    wall_clock now_;
    // Serialises the changes, the reloads and the read-throughs: held across
    // a change's store write, and while a reload applies what it read;
    // whoever changes the fields below holds it, and mu_ unique. Taken before mu_.
    std::mutex change_mu_;
    // Lookups hold it shared.
    mutable std::shared_mutex mu_;
    std::map<std::string, entry> tokens_;            // by token id
    std::map<std::string, std::string> hmac_to_id_;  // raw HMAC -> token id
    // The store writes this cache made: a reload or read-through whose read
    // one followed reads again (it would put back what the write replaced:
    // a token expired at once, or swept).
    uint64_t local_writes_ = 0;
    uint64_t loads_ = 0;  // how many load()s replaced the cache: a read-through that one ended during reads again
    std::unique_ptr<read_through_limit> misses_;  // null: no read-through
    std::function<void(const std::string&)> found_;
};

}  // namespace ketch::security
