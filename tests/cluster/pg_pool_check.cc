// Drives cluster/pg_pool.h against a live PostgreSQL (tests/cluster/test_pg_pool.py):
// ./pg_pool_check postgres://... Counts the pool's sessions in pg_stat_activity
// by their application_name. Prints one line per failed check and "ok" at the
// end; exits non-zero if any check did not hold.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cluster/pg_pool.h"

#include "check.h"

using namespace ketch;
using check::expect;
using check::failures;
using clock_type = std::chrono::steady_clock;

namespace {

// The server's sessions named `name` (asked on a connection of its own).
long sessions(const std::string& url, const std::string& name) {
    auto c = cluster::pg_connection::open(url);
    if (!c.ok()) return -1;
    auto r = (*c)->exec("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", {name});
    return r.ok() ? std::stol(r->at(0, 0)) : -1;
}

// A backend's exit is asynchronous to the client's close: polls until `want`, within 10 s.
bool sessions_become(const std::string& url, const std::string& name, long want) {
    const auto deadline = clock_type::now() + std::chrono::seconds(10);
    while (clock_type::now() < deadline)
        if (sessions(url, name) == want) return true;
    return false;
}

cluster::pg_pool_config config(const std::string& url, const std::string& name, size_t max) {
    cluster::pg_pool_config c;
    c.url = cluster::with_application_name(url, name);
    c.max = max;
    c.wait = std::chrono::milliseconds(300);
    return c;
}

// At most max open; a take beyond waits, then fails as PostgreSQL not answering does.
void bounded(const std::string& url) {
    cluster::pg_pool pool(config(url, "pool-check-bound", 3));
    std::vector<cluster::pg_pool::lease> held;
    for (int i = 0; i < 3; ++i) {
        auto c = pool.take();
        expect(c.ok(), "take " + std::to_string(i) + " under the bound");
        if (c.ok()) held.push_back(std::move(*c));
    }
    expect(sessions(url, "pool-check-bound") == 3, "three sessions named for the pool");
    std::thread other([&] {  // a second thread: not a nested take
        const auto start = clock_type::now();
        auto c = pool.take();
        expect(!c.ok() && c.error().connection_lost, "a take past the bound fails, as a lost connection");
        expect(clock_type::now() - start >= std::chrono::milliseconds(300), "after waiting the pool's wait");
        if (!c.ok())
            expect(c.error().message.find("--cluster-pg-connections") != std::string::npos,
                   "the failure names the flag: " + c.error().message);
    });
    other.join();
    auto s = pool.stats();
    expect(s.open == 3 && s.peak == 3 && s.timed_out == 1, "stats: 3 open, 1 timed out");
    expect(sessions(url, "pool-check-bound") == 3, "no fourth session was opened");
}

// A waiting take gets the connection another thread gives back.
void handed_over(const std::string& url) {
    cluster::pg_pool pool(config(url, "pool-check-handover", 1));
    auto first = pool.take();
    expect(first.ok(), "the only connection");
    cluster::pg_connection* given = first.ok() ? first->get() : nullptr;
    bool got = false;
    std::thread waiter([&] {
        auto c = pool.take();
        got = c.ok() && c->get() == given;
    });
    while (pool.stats().waited == 0) std::this_thread::yield();  // the waiter waits
    first->reset();
    waiter.join();
    expect(got, "the waiter got the connection given back");
    expect(sessions(url, "pool-check-handover") == 1, "one session");
}

// Idle connections beyond keep_idle close once idle for idle_close; broken ones are not handed out.
void idle_and_broken(const std::string& url) {
    auto cfg = config(url, "pool-check-idle", 4);
    cfg.keep_idle = 1;
    cfg.idle_close = std::chrono::milliseconds(0);
    cluster::pg_pool pool(cfg);
    {
        std::vector<cluster::pg_pool::lease> held;
        for (int i = 0; i < 4; ++i)
            if (auto c = pool.take(); c.ok()) held.push_back(std::move(*c));
        expect(held.size() == 4 && sessions(url, "pool-check-idle") == 4, "four taken");
    }
    expect(pool.stats().open == 1 && pool.stats().idle == 1, "given back: one kept idle, three closed");
    expect(sessions_become(url, "pool-check-idle", 1), "the server sees one session left");
    auto admin = cluster::pg_connection::open(url);
    expect(admin.ok() && (*admin)
                             ->exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                                    "application_name = 'pool-check-idle'")
                             .ok(),
           "the idle session terminated");
    expect(sessions_become(url, "pool-check-idle", 0), "no session left");
    // The server's termination message may reach the client after the check: a
    // failed first query is the caller's retriable error, the next take is good.
    auto c = pool.take();
    if (c.ok() && !(*c)->exec("SELECT 1").ok()) {
        c->reset();
        c = pool.take();
    }
    expect(c.ok() && (*c)->exec("SELECT 1").ok(), "a take after the termination gets a working connection");
}

// A thread taking a second connection while it holds one is counted.
void nested(const std::string& url) {
    cluster::pg_pool pool(config(url, "pool-check-nested", 2));
    auto a = pool.take();
    auto b = pool.take();
    expect(a.ok() && b.ok() && pool.stats().nested == 1, "a nested take is counted");
    if (b.ok()) b->reset();
    if (a.ok()) a->reset();
    auto c = pool.take();
    expect(c.ok() && pool.stats().nested == 1, "a take after both were given back is not nested");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: pg_pool_check postgres://...\n");
        return 2;
    }
    const std::string url = argv[1];
    bounded(url);
    handed_over(url);
    idle_and_broken(url);
    nested(url);
    if (failures == 0) std::printf("ok\n");
    return failures == 0 ? 0 : 1;
}
