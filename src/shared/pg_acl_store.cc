#include "shared/pg_acl_store.h"

#include "shared/pg_session.h"

#include <algorithm>
#include <stdexcept>

namespace ketch::shared {

namespace {

constexpr const char* k_insert =
    "INSERT INTO ketch_acls (resource_type, resource_name, pattern_type, principal, host, operation, permission) "
    "VALUES ($1, $2::bytea, $3, $4::bytea, $5::bytea, $6, $7) ON CONFLICT DO NOTHING";
constexpr const char* k_where =
    "resource_type = $1 AND resource_name = $2::bytea AND pattern_type = $3 AND principal = $4::bytea AND "
    "host = $5::bytea AND operation = $6 AND permission = $7";

cluster::pg_params params_of(const meta::stored_acl& a) {
    return {std::to_string(a.resource_type), to_bytea_hex(a.resource_name), std::to_string(a.pattern_type),
            to_bytea_hex(a.principal),       to_bytea_hex(a.host),          std::to_string(a.operation),
            std::to_string(a.permission)};
}

int8_t int8_of(const std::string& s) { return int8_t(std::stoi(s)); }

class pg_acl_store final : public meta::acl_store {
public:
    explicit pg_acl_store(cluster::pg_pool& pool) : session_(pool, "acls") {}

    result<std::vector<meta::stored_acl>, meta::store_error> load() const override {
        auto rows =
            session_.select("acls",
                            "SELECT resource_type, encode(resource_name, 'hex'), pattern_type, "
                            "encode(principal, 'hex'), encode(host, 'hex'), operation, permission FROM ketch_acls");
        if (!rows.ok()) return failure{rows.error()};
        auto out = rows_as(*rows, [](const cluster::pg_rows& r, size_t i) {
            return meta::stored_acl{int8_of(r.at(i, 0)),  from_hex(r.at(i, 1)), int8_of(r.at(i, 2)),
                                    from_hex(r.at(i, 3)), from_hex(r.at(i, 4)), int8_of(r.at(i, 5)),
                                    int8_of(r.at(i, 6))};
        });
        std::sort(out.begin(), out.end());
        return out;
    }

    // Every stored ACL, sorted; throws std::runtime_error when PostgreSQL does
    // not answer.
    std::vector<meta::stored_acl> list() const override {
        auto r = load();
        if (!r.ok()) throw std::runtime_error(r.error().message);
        return std::move(*r);
    }

    status<meta::store_error> apply(const std::vector<meta::stored_acl>& add,
                                    const std::vector<meta::stored_acl>& remove) override {
        return session_.transaction(
            "acls", k_acls_changed, [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
                for (auto& a : add) {
                    auto r = pg.exec(k_insert, params_of(a));
                    if (!r.ok()) return failure{r.error()};
                }
                for (auto& a : remove) {
                    auto r = pg.exec(std::string("DELETE FROM ketch_acls WHERE ") + k_where, params_of(a));
                    if (!r.ok()) return failure{r.error()};
                }
                return ok_v;
            });
    }

private:
    mutable pg_session session_;
};

}  // namespace

std::unique_ptr<meta::acl_store> make_pg_acl_store(cluster::pg_pool& pool) {
    return std::make_unique<pg_acl_store>(pool);
}

}  // namespace ketch::shared
