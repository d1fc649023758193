#include "app/pg_fault_store.h"

#include "shared/pg_session.h"

namespace ketch::app {

namespace {

using cluster::pg_connection;
using cluster::pg_error;

// A pause whose time is over (the brokers expire it on their own clocks; the
// rows go at the next add or clear).
constexpr const char* k_over =
    "(kind = 'pause' AND added_at + duration_ms * interval '1 millisecond' <= clock_timestamp())";

template <class T>
std::optional<std::string> text(const std::optional<T>& v) {
    if (!v) return std::nullopt;
    if constexpr (std::is_same_v<T, std::string>)
        return shared::to_bytea_hex(*v);
    else
        return std::to_string(*v);
}

template <class T>
std::optional<T> number(const std::optional<std::string>& v) {
    if (!v) return std::nullopt;
    return T(std::stoll(*v));
}

std::optional<std::string> bytes(const std::optional<std::string>& hex) {
    if (!hex) return std::nullopt;
    return shared::from_hex(*hex);
}

fault::stored_fault row_of(const cluster::pg_rows& rows, size_t i) {
    auto& row = rows.rows[i];
    fault::stored_fault f;
    f.id = std::stoull(rows.at(i, 0));
    f.r.what = fault::kind_from_name(rows.at(i, 1)).value_or(fault::kind::error);
    f.r.on = {number<int16_t>(row[2]), bytes(row[3]), number<int32_t>(row[4]), bytes(row[5])};
    f.r.error_code = int16_t(std::stoi(rows.at(i, 6)));
    f.r.duration_ms = std::stoll(rows.at(i, 7));
    f.r.count = number<int64_t>(row[8]);
    f.remaining = number<int64_t>(row[9]);
    f.injected = std::stoll(rows.at(i, 10));
    f.age_ms = std::stoll(rows.at(i, 11));
    return f;
}

template <class T>
T or_unavailable(result<T, meta::store_error> r) {
    if (!r.ok()) throw fault::store_unavailable(r.error().message);
    return std::move(*r);
}

void or_unavailable(const status<meta::store_error>& s) {
    if (!s.ok()) throw fault::store_unavailable(s.error().message);
}

class pg_fault_store final : public fault::store {
public:
    explicit pg_fault_store(cluster::pg_pool& pool) : session_(pool, "faults") {}

    // One add at a time (the table locked to its COMMIT), so that the limit holds
    // across brokers adding at once.
    uint64_t add(const fault::rule& r, size_t max_faults) override {
        uint64_t id = 0;
        or_unavailable(session_.transaction("faults", [&](pg_connection& pg) -> status<pg_error> {
            if (auto l = pg.run("LOCK TABLE ketch_faults IN SHARE ROW EXCLUSIVE MODE"); !l.ok()) return l;
            if (auto d = pg.exec(std::string("DELETE FROM ketch_faults WHERE ") + k_over); !d.ok())
                return failure{d.error()};
            auto n = pg.exec("SELECT count(*) FROM ketch_faults");
            if (!n.ok()) return failure{n.error()};
            if (std::stoull(n->at(0, 0)) >= max_faults) return ok_v;
            auto added = pg.exec(
                "INSERT INTO ketch_faults (kind, api_key, topic, partition, client_id, error_code, duration_ms, count, "
                "remaining) VALUES ($1, $2, $3::bytea, $4, $5::bytea, $6, $7, $8, $8) RETURNING id",
                {std::string(fault::kind_name(r.what)), text(r.on.api_key), text(r.on.topic), text(r.on.partition),
                 text(r.on.client_id), std::to_string(r.error_code), std::to_string(r.duration_ms), text(r.count)});
            if (!added.ok()) return failure{added.error()};
            id = std::stoull(added->at(0, 0));
            return shared::notify_commit(pg, k_faults_changed);
        }));
        return id;
    }

    bool remove(uint64_t id) override {
        bool found = false;
        or_unavailable(session_.transaction("faults", [&](pg_connection& pg) -> status<pg_error> {
            auto d = pg.exec("DELETE FROM ketch_faults WHERE id = $1", {std::to_string(id)});
            if (!d.ok()) return failure{d.error()};
            found = d->affected > 0;
            return found ? shared::notify_commit(pg, k_faults_changed) : ok_v;
        }));
        return found;
    }

    size_t clear() override {
        size_t n = 0;
        or_unavailable(session_.transaction("faults", k_faults_changed, [&](pg_connection& pg) -> status<pg_error> {
            auto d = pg.exec(std::string("WITH d AS (DELETE FROM ketch_faults RETURNING *) SELECT count(*) FROM d "
                                         "WHERE NOT ") +
                             k_over);
            if (!d.ok()) return failure{d.error()};
            n = std::stoull(d->at(0, 0));
            return ok_v;
        }));
        return n;
    }

    std::vector<fault::stored_fault> load() override {
        auto rows = or_unavailable(session_.select(
            "faults",
            std::string("SELECT id, kind, api_key, encode(topic, 'hex'), partition, encode(client_id, 'hex'), "
                        "error_code, duration_ms, count, remaining, injected, "
                        "floor(extract(epoch FROM clock_timestamp() - added_at) * 1000)::bigint "
                        "FROM ketch_faults WHERE NOT ") +
                k_over + " ORDER BY id"));
        return shared::rows_as(rows, row_of);
    }

    // The last count's claim removes the fault (and tells the brokers); a claim
    // that finds no row, or none left, is refused: another broker took it.
    bool claim(uint64_t id) override {
        bool claimed = false;
        or_unavailable(session_.transaction("faults", [&](pg_connection& pg) -> status<pg_error> {
            auto u = pg.exec(
                "UPDATE ketch_faults SET injected = injected + 1, remaining = remaining - 1 "
                "WHERE id = $1 AND (remaining IS NULL OR remaining > 0) RETURNING remaining",
                {std::to_string(id)});
            if (!u.ok()) return failure{u.error()};
            claimed = !u->rows.empty();
            if (!claimed || u->at(0, 0) != "0") return ok_v;
            if (auto d = pg.exec("DELETE FROM ketch_faults WHERE id = $1", {std::to_string(id)}); !d.ok())
                return failure{d.error()};
            return shared::notify_commit(pg, k_faults_changed);
        }));
        return claimed;
    }

    void count_injected(const std::vector<uint64_t>& ids) override {
        std::string list = "{";
        for (auto id : ids) list += (list.size() > 1 ? "," : "") + std::to_string(id);
        list += "}";
        or_unavailable(session_.select(
            "faults", "UPDATE ketch_faults SET injected = injected + 1 WHERE id = ANY($1::bigint[])", {list}));
    }

private:
    shared::pg_session session_;
};

}  // namespace

std::unique_ptr<fault::store> make_pg_fault_store(cluster::pg_pool& pool) {
    return std::make_unique<pg_fault_store>(pool);
}

}  // namespace ketch::app
