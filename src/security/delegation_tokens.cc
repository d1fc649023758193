#include "security/delegation_tokens.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <optional>

#include "base/clock.h"
#include "base/error_code.h"
#include "base/read_unraced.h"
#include "base/uuid.h"
#include "security/crypto.h"
#include "security/scram.h"

namespace ketch::security {

namespace {

constexpr int16_t code(error_code e) { return int16_t(e); }

// now + duration without overflow (DelegationTokenControlManager.sum).
int64_t sum(int64_t now, int64_t duration) {
    return now > std::numeric_limits<int64_t>::max() - duration ? std::numeric_limits<int64_t>::max() : now + duration;
}

bool expired(const meta::delegation_token& t, int64_t now) { return t.max_ms < now || t.expiry_ms < now; }

bool owner_or_renewer(const meta::delegation_token& t, const std::string& principal) {
    return t.owner == principal || std::find(t.renewers.begin(), t.renewers.end(), principal) != t.renewers.end();
}

}  // namespace

std::string token_hmac(const std::string& secret_key, const std::string& token_id) {
    return hmac(hash_alg::sha512, secret_key, token_id);
}

std::pair<std::string, std::string> split_principal(const std::string& principal) {
    auto colon = principal.find(':');
    if (colon == std::string::npos) return {"", principal};
    return {principal.substr(0, colon), principal.substr(colon + 1)};
}

delegation_tokens::delegation_tokens(token_config cfg, meta::token_store& store, wall_clock now)
    : cfg_(std::move(cfg)), store_(store), now_(std::move(now)) {
    if (!now_) now_ = ketch::wall_ms;
}

// The cache entry: the HMAC and, as DelegationTokenManager.updateCache, a
// SCRAM credential per mechanism with base64(HMAC) as the password.
delegation_tokens::entry delegation_tokens::make_entry(meta::delegation_token t) const {
    entry e;
    e.hmac = token_hmac(cfg_.secret_key, t.token_id);
    std::string password = base64_encode(e.hmac);
    for (const char* mech : {"SCRAM-SHA-256", "SCRAM-SHA-512"})
        e.scram[mech] = make_scram_credential(t.token_id, mech, password, k_scram_min_iterations);
    e.token = std::move(t);
    return e;
}

// A token already cached keeps its entry (the HMAC and the SCRAM
// credentials depend on the id only: PBKDF2 runs once per token, not at every
// reload).
result<std::map<std::string, delegation_tokens::entry>, meta::store_error> delegation_tokens::read_all() const {
    auto all = store_.load();
    if (!all.ok()) return failure{all.error()};
    std::map<std::string, entry> fresh;
    if (!enabled()) return fresh;  // no secret: no HMACs, no logins by token
    {
        std::shared_lock lock(mu_);
        for (auto& t : *all)
            if (auto it = tokens_.find(t.token_id); it != tokens_.end()) fresh[t.token_id] = it->second;
    }
    for (auto& t : *all) {
        const std::string id = t.token_id;
        auto it = fresh.find(id);
        if (it == fresh.end())
            fresh.emplace(id, make_entry(std::move(t)));
        else
            it->second.token = std::move(t);
    }
    return fresh;
}

// A read that a local change followed is made again (read_unraced): applied,
// it would undo the change (bring back a token this broker just created,
// expired at once or swept).
status<meta::store_error> delegation_tokens::load() {
    change_locks locks;
    auto fresh = read_unraced(
        change_mu_, mu_, locks, [this] { return local_writes_; }, [this] { return read_all(); });
    if (!fresh.ok()) return failure{fresh.error()};
    std::map<std::string, std::string> by_hmac;
    for (auto& [id, e] : *fresh) by_hmac[e.hmac] = id;
    tokens_ = std::move(*fresh);
    hmac_to_id_ = std::move(by_hmac);
    ++loads_;
    return ok_v;
}

delegation_tokens::create_result delegation_tokens::create(const std::string& owner, const std::string& requester,
                                                           const std::vector<std::string>& renewers,
                                                           int64_t max_lifetime_ms) {
    if (!enabled()) return {code(error_code::delegation_token_auth_disabled), {}};
    for (auto& r : renewers)
        if (split_principal(r).first != "User") return {code(error_code::invalid_principal_type), {}};
    int64_t now = now_();
    int64_t life = cfg_.max_lifetime_ms;
    if (max_lifetime_ms > 0) life = std::min(life, max_lifetime_ms);
    meta::delegation_token t;
    t.token_id = uuid::random().to_base64();  // Uuid.randomUuid().toString()
    t.owner = owner;
    t.requester = requester;
    t.renewers = renewers;
    t.issue_ms = now;
    t.max_ms = sum(now, life);
    t.expiry_ms = std::min(t.max_ms, sum(now, cfg_.expiry_time_ms));
    auto e = make_entry(std::move(t));  // PBKDF2: under no lock
    std::lock_guard changing(change_mu_);
    if (!store_.upsert(e.token).ok()) return {code(error_code::unknown_server_error), {}};
    create_result out{0, {e.token, e.hmac}};
    std::unique_lock lock(mu_);
    ++local_writes_;
    hmac_to_id_[e.hmac] = e.token.token_id;
    tokens_[e.token.token_id] = std::move(e);
    return out;
}

const delegation_tokens::entry* delegation_tokens::by_hmac(const std::string& hmac) const {
    auto id = hmac_to_id_.find(hmac);
    if (id == hmac_to_id_.end()) return nullptr;
    auto it = tokens_.find(id->second);
    return it == tokens_.end() ? nullptr : &it->second;
}

void delegation_tokens::forget(const std::string& token_id) {
    auto it = tokens_.find(token_id);
    if (it == tokens_.end()) return;
    hmac_to_id_.erase(it->second.hmac);
    tokens_.erase(it);
}

void delegation_tokens::forget_written(const std::string& token_id) {
    std::unique_lock lock(mu_);
    ++local_writes_;
    forget(token_id);
}

// Stores the token's new expiry; the caller holds the change lock. A token
// the store no longer holds (removed by another broker) is not found.
delegation_tokens::expiry_result delegation_tokens::store_expiry(const entry& e, int64_t expiry_ms) {
    const std::string id = e.token.token_id;
    auto found = store_.set_expiry(id, expiry_ms);
    if (!found.ok()) return {code(error_code::unknown_server_error), 0};
    std::unique_lock lock(mu_);
    ++local_writes_;
    if (!*found) {
        forget(id);
        return {code(error_code::delegation_token_not_found), 0};
    }
    tokens_[id].token.expiry_ms = expiry_ms;
    return {0, expiry_ms};
}

template <class Change>
delegation_tokens::expiry_result delegation_tokens::change_expiry(const std::string& hmac, Change&& change) {
    if (!enabled()) return {code(error_code::delegation_token_auth_disabled), 0};
    int64_t now = now_();
    std::lock_guard changing(change_mu_);
    const entry* e = by_hmac(hmac);
    if (!e) return {code(error_code::delegation_token_not_found), 0};
    return change(*e, now);
}

delegation_tokens::expiry_result delegation_tokens::renew(const std::string& principal, const std::string& hmac,
                                                          int64_t period_ms) {
    return change_expiry(hmac, [&](const entry& e, int64_t now) -> expiry_result {
        if (expired(e.token, now)) return {code(error_code::delegation_token_expired), 0};
        if (!owner_or_renewer(e.token, principal)) return {code(error_code::delegation_token_owner_mismatch), 0};
        int64_t life = cfg_.expiry_time_ms;
        if (period_ms > 0) life = std::min(life, period_ms);
        return store_expiry(e, std::min(e.token.max_ms, now + life));
    });
}

delegation_tokens::expiry_result delegation_tokens::expire(const std::string& principal, const std::string& hmac,
                                                           int64_t period_ms) {
    return change_expiry(hmac, [&](const entry& e, int64_t now) -> expiry_result {
        if (!owner_or_renewer(e.token, principal)) return {code(error_code::delegation_token_owner_mismatch), 0};
        if (period_ms < 0) {  // expire now: the token is removed
            std::string id = e.token.token_id;
            if (!store_.remove(id).ok()) return {code(error_code::unknown_server_error), 0};
            forget_written(id);
            return {0, now};
        }
        if (expired(e.token, now)) return {code(error_code::delegation_token_expired), 0};
        return store_expiry(e, std::min(e.token.max_ms, sum(now, period_ms)));
    });
}

std::vector<delegation_tokens::described> delegation_tokens::list() const {
    std::shared_lock lock(mu_);
    std::vector<described> out;
    for (auto& [id, e] : tokens_) out.push_back({e.token, e.hmac});
    return out;
}

// Each token leaves the cache once the store removed it (a login by it is
// refused from then on); one the store could not remove stays.
delegation_tokens::removal delegation_tokens::remove_where(
    const std::function<bool(const entry&)>& doomed,
    const std::function<result<bool, meta::store_error>(const std::string&)>& remove, std::vector<std::string>* kept) {
    std::lock_guard changing(change_mu_);
    std::vector<std::string> ids;
    for (auto& [id, e] : tokens_)
        if (doomed(e)) ids.push_back(id);
    removal out;
    for (auto& id : ids) {
        auto removed = remove(id);
        if (!removed.ok()) {
            ++out.left;
            continue;
        }
        if (!*removed) {
            if (kept) kept->push_back(id);
            continue;
        }
        forget_written(id);
        ++out.removed;
    }
    return out;
}

size_t delegation_tokens::sweep() {
    int64_t now = now_();
    std::vector<std::string> renewed;
    auto out = remove_where([now](const entry& e) { return expired(e.token, now); },
                            [&](const std::string& id) { return store_.remove_expired(id, now); }, &renewed);
    // The store's row is newer than the cache's: take it. Gone from the store
    // (swept by another broker) or unread, a token still expired here leaves
    // the cache: a login by it would read it through, if it is stored.
    for (auto& id : renewed) {
        if (read_through(id)) continue;
        std::lock_guard changing(change_mu_);
        auto it = tokens_.find(id);
        if (it == tokens_.end() || !expired(it->second.token, now)) continue;
        forget_written(id);
    }
    return out.removed;
}

delegation_tokens::removal delegation_tokens::remove_owned(const std::function<bool(const std::string& owner)>& owned) {
    return remove_where([&owned](const entry& e) { return owned(e.token.owner); },
                        [&](const std::string& id) -> result<bool, meta::store_error> {
                            auto st = store_.remove(id);
                            if (!st.ok()) return failure{st.error()};
                            return true;
                        });
}

void delegation_tokens::read_misses_through(std::unique_ptr<read_through_limit> limit,
                                            std::function<void(const std::string&)> found) {
    misses_ = std::move(limit);
    found_ = std::move(found);
}

std::optional<token_login> delegation_tokens::find(const std::string& token_id, const std::string& mechanism) {
    if (auto login = find_cached(token_id, mechanism)) return login;
    if (!misses_ || !enabled() || !misses_->allow(token_id) || !read_through(token_id)) return std::nullopt;
    return find_cached(token_id, mechanism);
}

// The stored token, with the cached entry's HMAC and SCRAM credentials when
// cached (PBKDF2 otherwise, under no lock but the change lock's last try).
std::optional<delegation_tokens::entry> delegation_tokens::read_one(const std::string& token_id) const {
    auto stored = store_.load_one(token_id);
    if (!stored.ok() || !*stored) return std::nullopt;
    {
        std::shared_lock lock(mu_);
        if (auto it = tokens_.find(token_id); it != tokens_.end()) {
            entry e = it->second;
            e.token = std::move(**stored);
            return e;
        }
    }
    return make_entry(std::move(**stored));
}

// The stored token replaces the cached one (a renewal not heard yet), or is
// added with its HMAC and SCRAM credentials. A read that a local change or a
// reload followed is made again (read_unraced): applied, it could bring back
// a token this broker expired at once or swept, or a reload removed, or undo
// a renewal.
bool delegation_tokens::read_through(const std::string& token_id) {
    {
        change_locks locks;
        auto stored = read_unraced(
            change_mu_, mu_, locks, [this] { return local_writes_ + loads_; }, [&] { return read_one(token_id); });
        if (!stored) return false;
        hmac_to_id_[stored->hmac] = token_id;
        tokens_[token_id] = std::move(*stored);
    }
    if (found_) found_(token_id);
    return true;
}

std::optional<token_login> delegation_tokens::find_cached(const std::string& token_id,
                                                          const std::string& mechanism) const {
    int64_t now = now_();
    std::shared_lock lock(mu_);
    auto it = tokens_.find(token_id);
    if (it == tokens_.end() || expired(it->second.token, now)) return std::nullopt;
    auto cred = it->second.scram.find(mechanism);
    if (cred == it->second.scram.end()) return std::nullopt;
    return token_login{cred->second, split_principal(it->second.token.owner).second, it->second.token.expiry_ms - now};
}

}  // namespace ketch::security
