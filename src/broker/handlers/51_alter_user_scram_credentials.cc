// AlterUserScramCredentials v0. Behaviour: ScramControlManager.alterCredentials
// (KRaft): one change per user per request (DUPLICATE_RESOURCE otherwise),
// empty user names and unknown mechanisms refused, 4096..16384 iterations,
// deleting what does not exist is RESOURCE_NOT_FOUND. The salted password is
// turned into StoredKey/ServerKey at once; it is never stored.
#include <map>

#include <set>

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "meta/credential_store.h"
#include "security/scram.h"

namespace ketch::broker {

using namespace kafka;

namespace {

const char* mechanism_name(int8_t type) { return type == 1 ? "SCRAM-SHA-256" : type == 2 ? "SCRAM-SHA-512" : nullptr; }

struct api_error {
    error_code code = error_code::none;
    std::string message;
};

api_error validate_name_and_mechanism(const std::string& name, int8_t mechanism) {
    if (name.empty()) return {error_code::unacceptable_credential, "Username must not be empty"};
    if (!mechanism_name(mechanism)) return {error_code::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"};
    return {};
}

using deletion = alter_user_scram_credentials_request::scram_credential_deletion;
using upsertion = alter_user_scram_credentials_request::scram_credential_upsertion;

api_error deletion_problem(const deletion& d, meta::credential_store* store) {
    api_error e = validate_name_and_mechanism(d.name, d.mechanism);
    if (e.code == error_code::none && (!store || !store->find(d.name, mechanism_name(d.mechanism))))
        e = {error_code::resource_not_found, "Attempt to delete a user credential that does not exist"};
    return e;
}

api_error upsertion_problem(const upsertion& u) {
    api_error e = validate_name_and_mechanism(u.name, u.mechanism);
    if (e.code != error_code::none) return e;
    if (u.iterations < security::k_scram_min_iterations)
        return {error_code::unacceptable_credential, "Too few iterations"};
    if (u.iterations > security::k_scram_max_iterations)
        return {error_code::unacceptable_credential, "Too many iterations"};
    // Kafka derives the keys with an HMAC keyed by the salted password; an
    // empty one throws (SecretKeySpec): UNKNOWN_SERVER_ERROR, no message.
    if (u.salted_password.empty()) return {error_code::unknown_server_error, {}};
    return {};
}

// ControllerApis without ALTER on the cluster: every user named (once,
// sorted) CLUSTER_AUTHORIZATION_FAILED (AlterUserScramCredentialsRequest.getErrorResponse).
alter_user_scram_credentials_response all_denied(const alter_user_scram_credentials_request& req) {
    alter_user_scram_credentials_response resp;
    std::set<std::string> users;
    for (auto& d : req.deletions) users.insert(d.name);
    for (auto& u : req.upsertions) users.insert(u.name);
    for (auto& u : users) {
        auto& r = resp.results.emplace_back();
        r.user = u;
        r.error_code = code(error_code::cluster_authorization_failed);
        r.error_message = std::string(error_message(error_code::cluster_authorization_failed));
    }
    return resp;
}

// Every change checked, and the valid ones written to `store`.
alter_user_scram_credentials_response alter_each(meta::credential_store* store,
                                                 const alter_user_scram_credentials_request& req) {
    alter_user_scram_credentials_response resp;
    std::vector<std::pair<std::string, const deletion*>> deletions;
    std::vector<std::pair<std::string, const upsertion*>> upserts;
    std::vector<std::pair<std::string, api_error>> errors;
    auto has = [](auto& v, const std::string& n) {
        return std::find_if(v.begin(), v.end(), [&](auto& e) { return e.first == n; }) != v.end();
    };
    auto take = [](auto& v, const std::string& n) {
        auto it = std::find_if(v.begin(), v.end(), [&](auto& e) { return e.first == n; });
        if (it == v.end()) return false;
        v.erase(it);
        return true;
    };
    const api_error duplicate{error_code::duplicate_resource,
                              "A user credential cannot be altered twice in the same request"};
    for (auto& d : req.deletions) {
        if (has(errors, d.name)) continue;
        if (take(deletions, d.name)) {
            errors.emplace_back(d.name, duplicate);
            continue;
        }
        api_error e = deletion_problem(d, store);
        if (e.code != error_code::none)
            errors.emplace_back(d.name, e);
        else
            deletions.emplace_back(d.name, &d);
    }
    for (auto& u : req.upsertions) {
        if (has(errors, u.name)) continue;
        if (take(deletions, u.name) || take(upserts, u.name)) {
            errors.emplace_back(u.name, duplicate);
            continue;
        }
        api_error e = upsertion_problem(u);
        if (e.code != error_code::none)
            errors.emplace_back(u.name, e);
        else
            upserts.emplace_back(u.name, &u);
    }
    auto ok_row = [&](const std::string& user) { resp.results.push_back({user, 0, std::nullopt, {}}); };
    for (auto& [user, d] : deletions) {
        auto r = store->remove(user, mechanism_name(d->mechanism));
        if (r.ok())
            ok_row(user);
        else
            errors.emplace_back(user, api_error{error_code::unknown_server_error, r.error().message});
    }
    for (auto& [user, u] : upserts) {
        std::string salted(u->salted_password.begin(), u->salted_password.end());
        std::string salt(u->salt.begin(), u->salt.end());
        auto st = store ? store->upsert(security::scram_credential_from_salted(user, mechanism_name(u->mechanism),
                                                                               salted, salt, u->iterations))
                        : status<meta::store_error>(failure{meta::store_error{"no credential store"}});
        if (st.ok())
            ok_row(user);
        else
            errors.emplace_back(user, api_error{error_code::unknown_server_error, st.error().message});
    }
    for (auto& [user, e] : errors)
        resp.results.push_back(
            {user, code(e.code), e.message.empty() ? std::nullopt : std::optional<std::string>(e.message), {}});
    return resp;
}

}  // namespace

awaitable<alter_user_scram_credentials_response> handle_alter_user_scram_credentials(
    request_context& ctx, alter_user_scram_credentials_request& req) {
    if (!ctx.authorize_cluster(security::acl_operation::alter)) co_return all_denied(req);
    // The checks read the credentials (cluster mode: a user not cached is read
    // in PostgreSQL), the changes write them: store_answer.
    auto* store = ctx.broker.credentials;
    co_return co_await store_answer<alter_user_scram_credentials_response>(
        ctx.broker, [store, &req] { return alter_each(store, req); });
}

// AlterUserScramCredentialsRequest.getErrorResponse: each user named by a
// deletion or an upsertion, once, in name order, with the error and the
// exception's message.
std::optional<alter_user_scram_credentials_response> alter_user_scram_credentials_error(
    const alter_user_scram_credentials_request& req, int16_t, const error_answer& e) {
    std::vector<std::string> users;
    for (auto& d : req.deletions) users.push_back(d.name);
    for (auto& u : req.upsertions) users.push_back(u.name);
    std::sort(users.begin(), users.end());
    users.erase(std::unique(users.begin(), users.end()), users.end());
    alter_user_scram_credentials_response resp;
    for (auto& user : users) {
        auto& r = error_row(resp.results, e);
        r.user = user;
        set_message(r.error_message, e.message);
    }
    return resp;
}

}  // namespace ketch::broker
