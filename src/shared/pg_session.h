// A cluster-mode store's way to PostgreSQL: one caller at a time (mu()), each
// call on a connection taken from the broker's pool (cluster/pg_pool.h) for
// the call and given back after it. Every PG store holds one and goes through
// query(), select() or transaction(): they take the lock and a connection, and
// name what failed (a pool with no free connection fails as PostgreSQL not
// answering does).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cluster/pg.h"
#include "cluster/pg_pool.h"
#include "meta/store.h"

namespace ketch::shared {

// A store error naming what failed: "<what>: PostgreSQL: <message>".
meta::store_error pg_failed(const char* what, const cluster::pg_error& e);

// bytea as text parameters and columns: '\x' and lower-case hex.
std::string to_bytea_hex(const std::string& raw);
std::string from_hex(const std::string& hex);

// Strings packed as bytes: each a 4-byte big-endian length and its bytes.
void put_prefixed(std::string& out, const std::string& s);
// The next string at `pos` (moved past it); nullopt when the bytes end early.
std::optional<std::string> take_prefixed(const std::string& in, size_t& pos);

// Each row made a value by row(rows, i), in order.
template <class Row>
auto rows_as(const cluster::pg_rows& rows, Row row) {
    std::vector<std::invoke_result_t<Row, const cluster::pg_rows&, size_t>> out;
    out.reserve(rows.rows.size());
    for (size_t i = 0; i < rows.rows.size(); ++i) out.push_back(row(rows, i));
    return out;
}

// SELECT pg_notify('ketch_commit', payload): what a change announces to the
// brokers (shared_engine's commit listener hands it to whoever registered
// the payload); delivered after the COMMIT of the transaction it runs in.
status<cluster::pg_error> notify_commit(cluster::pg_connection& pg, const char* payload);

namespace detail {
template <class R>
struct pg_value;
template <class T>
struct pg_value<result<T, cluster::pg_error>> {
    using type = T;
};
}  // namespace detail

class pg_session {
public:
    // `store` names the store in a failure to connect ("offsets").
    pg_session(cluster::pg_pool& pool, const char* store) : pool_(pool), store_(store) {}

    std::mutex& mu() { return mu_; }
    // A connection of the pool, kept until release(); mu() held.
    result<cluster::pg_connection*, meta::store_error> conn();
    // Gives conn()'s connection back to the pool; mu() held.
    void release() { held_.reset(); }

    // body(pg) -> result<T, pg_error>, outside a transaction, under mu():
    // its value, or its failure named `what`.
    template <class Body>
    auto query(const char* what, Body body)
        -> result<typename detail::pg_value<std::invoke_result_t<Body, cluster::pg_connection&>>::type,
                  meta::store_error> {
        std::lock_guard l(mu_);
        auto c = conn();
        if (!c.ok()) return failure{c.error()};
        releasing done{*this};
        auto r = body(**c);
        if (!r.ok()) return failure{pg_failed(what, r.error())};
        return std::move(*r);
    }

    // One statement's rows (a SELECT outside a transaction).
    result<cluster::pg_rows, meta::store_error> select(const char* what, const std::string& sql,
                                                       const cluster::pg_params& params = {});

    // body(pg) -> status<pg_error> between BEGIN and COMMIT (ROLLBACK when
    // it fails), under mu().
    template <class Body>
    status<meta::store_error> transaction(const char* what, Body body) {
        return transaction(what, nullptr, std::move(body));
    }
    // The same, ending with notify_commit(notice) when `notice` is set.
    template <class Body>
    status<meta::store_error> transaction(const char* what, const char* notice, Body body) {
        std::lock_guard l(mu_);
        auto c = conn();
        if (!c.ok()) return failure{c.error()};
        releasing done{*this};
        auto& pg = **c;
        if (auto b = pg.run("BEGIN"); !b.ok()) return failure{pg_failed(what, b.error())};
        auto r = body(pg);
        if (r.ok() && notice) r = notify_commit(pg, notice);
        if (!r.ok()) {
            (void)pg.run("ROLLBACK");
            return failure{pg_failed(what, r.error())};
        }
        if (auto done = pg.run("COMMIT"); !done.ok()) return failure{pg_failed(what, done.error())};
        return ok_v;
    }

private:
    struct releasing {
        pg_session& s;
        ~releasing() { s.release(); }
    };
    cluster::pg_pool& pool_;
    const char* store_;
    std::mutex mu_;
    cluster::pg_pool::lease held_;  // mu_
};

}  // namespace ketch::shared
