// One PostgreSQL connection of a cluster-mode store: opened at first use and
// again after it broke, used by one caller at a time (mu()). The offset and
// transaction stores each hold one.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "cluster/pg.h"
#include "meta/store.h"

namespace ketch::shared {

// A store error naming what failed: "<what>: PostgreSQL: <message>".
meta::store_error pg_failed(const char* what, const cluster::pg_error& e);

class pg_session {
public:
    // `store` names the store in a failure to connect ("offsets").
    pg_session(std::string url, const char* store) : url_(std::move(url)), store_(store) {}

    std::mutex& mu() { return mu_; }
    // The connection, reopened when it is not healthy; mu() held.
    result<cluster::pg_connection*, meta::store_error> conn();

    // body(pg) between BEGIN and COMMIT (ROLLBACK when it fails), under mu().
    template <class Body>
    status<meta::store_error> transaction(const char* what, Body body) {
        std::lock_guard l(mu_);
        auto c = conn();
        if (!c.ok()) return failure{c.error()};
        auto& pg = **c;
        if (auto b = pg.run("BEGIN"); !b.ok()) return failure{pg_failed(what, b.error())};
        if (auto r = body(pg); !r.ok()) {
            (void)pg.run("ROLLBACK");
            return failure{pg_failed(what, r.error())};
        }
        if (auto done = pg.run("COMMIT"); !done.ok()) return failure{pg_failed(what, done.error())};
        return ok_v;
    }

private:
    const std::string url_;
    const char* store_;
    std::mutex mu_;
    std::unique_ptr<cluster::pg_connection> c_;
};

}  // namespace ketch::shared
