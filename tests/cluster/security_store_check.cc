// Drives shared/pg_acl_store.h, pg_credential_store.h, pg_quota_store.h and pg_token_store.h against a live
// PostgreSQL (tests/cluster/test_security_stores.py): ./security_store_check
// postgres://... Two stores of each kind stand for two brokers. Prints one line
// per failed check and "ok" at the end; exits non-zero if any check did not hold.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/commit_listener.h"
#include "cluster/schema.h"
#include "shared/pg_acl_store.h"
#include "shared/pg_credential_store.h"
#include "shared/pg_quota_store.h"
#include "shared/pg_token_store.h"

#include "check.h"

using namespace ketch;
using check::expect;
using check::failures;

namespace {

// Names are bytes: a NUL, a quote and a byte that is not UTF-8 survive.
const std::string k_odd = std::string("we\0ird'\xff", 8);

// Each change is announced with its payload, after its COMMIT.
struct heard {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::string> payloads;
    bool wait_for(const std::string& p) {
        std::unique_lock l(mu);
        return cv.wait_for(l, std::chrono::seconds(10), [&] {
            for (auto& x : payloads)
                if (x == p) return true;
            return false;
        });
    }
    void clear() {
        std::lock_guard l(mu);
        payloads.clear();
    }
};

void acls(cluster::pg_pool& pool_one, cluster::pg_pool& pool_two, heard& h) {
    auto one = shared::make_pg_acl_store(pool_one), two = shared::make_pg_acl_store(pool_two);
    meta::stored_acl a{2, "orders", 3, "User:alice", "*", 4, 3};
    meta::stored_acl b{2, k_odd, 1, "User:" + k_odd, k_odd, 2, 2};
    expect(one->apply({a, b}, {}).ok(), "apply adds");
    expect(h.wait_for(shared::k_acls_changed), "an ACL change is announced");
    auto seen = two->load();
    expect(seen.ok() && *seen == std::vector<meta::stored_acl>{a, b}, "another store lists both, sorted, bytes kept");
    expect(two->apply({a}, {b}).ok(), "adding a row again and removing one");
    expect(one->list() == std::vector<meta::stored_acl>{a}, "the re-added row kept once, the removed gone");
    expect(one->apply({}, {b}).ok(), "removing a missing row is no error");
    expect(one->apply({}, {a}).ok() && two->list().empty(), "the last removed");
}

void credentials(cluster::pg_pool& pool_one, cluster::pg_pool& pool_two, heard& h) {
    auto one = shared::pg_credential_store::open(pool_one);
    auto two = shared::pg_credential_store::open(pool_two);
    expect(one.ok() && two.ok(), "the stores open");
    if (!one.ok() || !two.ok()) return;
    meta::scram_credential c{k_odd, "SCRAM-SHA-256", std::string("s\0alt", 5), "stored", "server", 4096};
    h.clear();
    expect((*one)->upsert(c).ok(), "upsert");
    expect(h.wait_for(shared::k_credentials_changed), "a credential change is announced");
    expect((*one)->find(k_odd, "SCRAM-SHA-256").has_value(), "the writer finds it at once");
    expect((*two)->find(k_odd, "SCRAM-SHA-256").has_value(), "the other reads it through before its reload");
    expect((*two)->reload().ok(), "reload");
    auto got = (*two)->find(k_odd, "SCRAM-SHA-256");
    expect(got && got->salt == c.salt && got->stored_key == "stored" && got->server_key == "server" &&
               got->iterations == 4096,
           "after a reload the other finds it, bytes kept");
    c.iterations = 8192;
    expect((*two)->upsert(c).ok() && (*one)->reload().ok(), "replaced through the other");
    got = (*one)->find(k_odd, "SCRAM-SHA-256");
    expect(got && got->iterations == 8192 && (*one)->list().size() == 1, "one row, replaced");
    auto gone = (*one)->remove(k_odd, "SCRAM-SHA-256");
    expect(gone.ok() && *gone, "remove answers true");
    auto again = (*one)->remove(k_odd, "SCRAM-SHA-256");
    expect(again.ok() && !*again, "removing again answers false");
    expect((*two)->reload().ok() && !(*two)->find(k_odd, "SCRAM-SHA-256"), "the other forgets it on reload");
}

void quotas(cluster::pg_pool& pool_one, cluster::pg_pool& pool_two, heard& h) {
    shared::pg_quota_store one(pool_one), two(pool_two);
    const meta::quota_entity_parts user{{"client-id", std::nullopt}, {"user", k_odd}};
    const meta::quota_entity_parts fallback{{"user", std::nullopt}};
    expect(shared::decode_quota_entity(shared::encode_quota_entity(user)) == user, "an entity's bytes read back");
    expect(!shared::decode_quota_entity(std::string("\0\0\0\5ab", 6)), "truncated bytes are refused");
    h.clear();
    expect(one.apply({{user, "producer_byte_rate", 1048576.5}, {fallback, "request_percentage", 0.1}}).ok(), "apply");
    expect(h.wait_for(shared::k_quotas_changed), "a quota change is announced");
    auto seen = two.load();
    expect(seen.ok() && seen->size() == 2, "another store reads both");
    if (seen.ok())
        for (auto& v : *seen)
            expect(v.entity == user ? v.key == "producer_byte_rate" && v.value == 1048576.5
                                    : v.entity == fallback && v.value == 0.1,
                   "entities and values exact");
    expect(two.apply({{user, "producer_byte_rate", 2.0}, {fallback, "request_percentage", std::nullopt}}).ok(),
           "replace one, remove one");
    seen = one.load();
    expect(seen.ok() && seen->size() == 1 && (*seen)[0].value == 2.0, "one left, replaced");
    expect(one.apply({{user, "producer_byte_rate", std::nullopt}}).ok() && two.load()->empty(), "the last removed");
}

void tokens(cluster::pg_pool& pool_one, cluster::pg_pool& pool_two, heard& h) {
    auto one = shared::make_pg_token_store(pool_one), two = shared::make_pg_token_store(pool_two);
    meta::delegation_token t{"tok-1", "User:" + k_odd, "User:admin", {"User:bob", "User:" + k_odd, ""}, 10, 20, 30};
    h.clear();
    expect(one->upsert(t).ok(), "upsert");
    expect(h.wait_for(shared::k_tokens_changed), "a token change is announced");
    auto seen = two->load();
    expect(seen.ok() && seen->size() == 1 && (*seen)[0].owner == t.owner && (*seen)[0].renewers == t.renewers &&
               (*seen)[0].issue_ms == 10 && (*seen)[0].expiry_ms == 20 && (*seen)[0].max_ms == 30,
           "another store reads it, principals' bytes and renewers kept");
    auto moved = two->set_expiry("tok-1", 25);
    expect(moved.ok() && *moved && (*one->load())[0].expiry_ms == 25, "set_expiry moves the expiry");
    expect(one->remove("tok-1").ok() && two->load()->empty(), "removed");
    auto missing = two->set_expiry("tok-1", 26);
    expect(missing.ok() && !*missing && one->load()->empty(), "set_expiry of a removed token: false, no row made");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: security_store_check postgres://...\n");
        return 2;
    }
    const std::string url = argv[1];
    auto c = cluster::pg_connection::open(url);
    if (!c.ok() || !cluster::migrate(**c).ok()) {
        std::printf("FAIL cannot connect and migrate\n");
        return 1;
    }
    heard h;
    cluster::commit_listener listener(url, [&h](const std::string& p) {
        std::lock_guard l(h.mu);
        h.payloads.push_back(p);
        h.cv.notify_all();
    });
    expect(listener.wait_listening(std::chrono::seconds(10)), "the listener listens");
    // Two brokers' pools.
    cluster::pg_pool pool_a({url}), pool_b({url});
    acls(pool_a, pool_b, h);
    credentials(pool_a, pool_b, h);
    quotas(pool_a, pool_b, h);
    tokens(pool_a, pool_b, h);
    if (failures == 0) std::printf("ok\n");
    return failures == 0 ? 0 : 1;
}
