// ketch user list|create|delete: SCRAM credentials (DescribeUserScramCredentials,
// AlterUserScramCredentials). The salted password is computed here (RFC 5802
// Hi(), security/crypto.h); the password itself never leaves the machine.
#include <iostream>

#include "cli/command.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "security/crypto.h"

namespace ketch::cli {

namespace {

struct user_opts {
    std::vector<std::string> users;
    std::string user;
    std::string password;
    std::string mechanism = "SCRAM-SHA-256";
    int32_t iterations = 4096;
};

int8_t mechanism_code(const std::string& m) {
    if (m == "SCRAM-SHA-256") return 1;
    if (m == "SCRAM-SHA-512") return 2;
    throw usage_error("--mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512");
}
const char* mechanism_name(int8_t c) { return c == 1 ? "SCRAM-SHA-256" : c == 2 ? "SCRAM-SHA-512" : "UNKNOWN"; }

void list_users(context& ctx, user_opts& o) {
    kafka::describe_user_scram_credentials_request req;
    if (o.users.empty())
        req.users.reset();
    else
        for (auto& u : o.users) req.users->emplace_back().name = u;
    auto resp = ctx.connect().call<kafka::describe_user_scram_credentials_response>(req);
    check(resp.error_code, "list users", resp.error_message);
    answer a;
    for (auto& r : resp.results) {
        check(r.error_code, "user '" + r.user + "'", r.error_message);
        json creds = json::array();
        for (auto& ci : r.credential_infos) {
            creds.push_back({{"mechanism", mechanism_name(ci.mechanism)}, {"iterations", ci.iterations}});
            a.rows.push_back({r.user, mechanism_name(ci.mechanism), std::to_string(ci.iterations)});
        }
        a.out.push_back({{"user", r.user}, {"credentials", creds}});
    }
    a.print(ctx.json, {"USER", "MECHANISM", "ITERATIONS"});
}

void create_user(context& ctx, user_opts& o) {
    if (o.password.empty()) throw usage_error("give --password");
    int8_t mech = mechanism_code(o.mechanism);
    auto alg = mech == 1 ? security::hash_alg::sha256 : security::hash_alg::sha512;
    std::string salt = security::random_bytes(32);
    std::string salted = security::pbkdf2(alg, o.password, salt, o.iterations);
    kafka::alter_user_scram_credentials_request req;
    auto& u = req.upsertions.emplace_back();
    u.name = o.user;
    u.mechanism = mech;
    u.iterations = o.iterations;
    u.salt.assign(salt.begin(), salt.end());
    u.salted_password.assign(salted.begin(), salted.end());
    auto resp = ctx.connect().call<kafka::alter_user_scram_credentials_response>(req);
    for (auto& r : resp.results) check(r.error_code, "create user '" + r.user + "'", r.error_message);
    if (ctx.json)
        std::cout << json{{"user", o.user}, {"mechanism", o.mechanism}, {"iterations", o.iterations}}.dump() << "\n";
    else
        std::cout << "user " << o.user << " (" << o.mechanism << ") saved\n";
}

void remove_user(context& ctx, user_opts& o) {
    kafka::alter_user_scram_credentials_request req;
    auto& d = req.deletions.emplace_back();
    d.name = o.user;
    d.mechanism = mechanism_code(o.mechanism);
    auto resp = ctx.connect().call<kafka::alter_user_scram_credentials_response>(req);
    for (auto& r : resp.results) check(r.error_code, "delete user '" + r.user + "'", r.error_message);
    if (ctx.json)
        std::cout << json{{"user", o.user}, {"mechanism", o.mechanism}, {"deleted", true}}.dump() << "\n";
    else
        std::cout << "user " << o.user << " (" << o.mechanism << ") deleted\n";
}

}  // namespace

void add_user_commands(CLI::App& app, context& ctx) {
    auto o = std::make_shared<user_opts>();
    auto* u = app.add_subcommand("user", "SCRAM users: list, create (or change a password), delete");
    u->require_subcommand(1);
    auto* l = add_broker_command(u, ctx, "list", "users with SCRAM credentials", "Example:\n  ketch user list",
                                 [&ctx, o] { list_users(ctx, *o); });
    l->add_option("users", o->users, "only these users");
    auto* c = add_broker_command(u, ctx, "create", "create a SCRAM credential (or replace its password)",
                                 "Example:\n  ketch user create alice --password s3cret --mechanism SCRAM-SHA-512",
                                 [&ctx, o] { create_user(ctx, *o); });
    c->add_option("user", o->user, "user name")->required();
    c->add_option("--password", o->password, "the password")->required();
    c->add_option("--mechanism", o->mechanism, "SCRAM-SHA-256 or SCRAM-SHA-512")->capture_default_str();
    c->add_option("--iterations", o->iterations, "PBKDF2 iterations (4096..16384)")->capture_default_str();
    auto* d = add_broker_command(u, ctx, "delete", "delete a user's SCRAM credential",
                                 "Example:\n  ketch user delete alice --mechanism SCRAM-SHA-512",
                                 [&ctx, o] { remove_user(ctx, *o); });
    d->add_option("user", o->user, "user name")->required();
    d->add_option("--mechanism", o->mechanism, "SCRAM-SHA-256 or SCRAM-SHA-512")->capture_default_str();
}

}  // namespace ketch::cli
