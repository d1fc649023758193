// Dynamic broker configs and named config resources (GROUP, CLIENT_METRICS)
// in PostgreSQL (pg_topic_store.h): ketch_broker_configs (migration 11) and
// ketch_resource_configs (migration 17), each change one transaction ending
// with its NOTIFY. A read-modify-write (update_*) holds a transaction-scoped
// advisory lock of the set it changes, so concurrent changes of one set
// through two brokers are applied one after the other (Kafka's controller
// serialises them: ConfigurationControlManager.incrementalAlterConfigs).
#include "shared/pg_topic_store.h"

namespace ketch::shared {

namespace {

// Advisory lock classes (the two-key form: a key space apart from the
// single-key locks of the migrations and the background jobs).
constexpr int k_broker_configs_lock = 0x6b636667;    // "kcfg"
constexpr int k_resource_configs_lock = 0x6b726366;  // "krcf" (+ the kind)

int kind_code(meta::config_resource kind) { return kind == meta::config_resource::group ? 32 : 16; }

status<cluster::pg_error> lock_set(cluster::pg_connection& pg, int lock_class, const std::string& key) {
    auto r = pg.exec("SELECT pg_advisory_xact_lock($1::int4, hashtext($2))", {std::to_string(lock_class), key});
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

status<cluster::pg_error> replace_broker_configs(cluster::pg_connection& pg, const std::string& scope,
                                                 const meta::config_map& configs) {
    auto r = pg.exec("DELETE FROM ketch_broker_configs WHERE scope = $1", {scope});
    if (!r.ok()) return failure{r.error()};
    for (auto& [k, v] : configs) {
        auto i = pg.exec("INSERT INTO ketch_broker_configs (scope, name, value) VALUES ($1, $2, $3)", {scope, k, v});
        if (!i.ok()) return failure{i.error()};
    }
    return ok_v;
}

status<cluster::pg_error> replace_resource_configs(cluster::pg_connection& pg, int kind, const std::string& name,
                                                   const meta::config_map& configs) {
    const std::string k = std::to_string(kind), n = to_bytea_hex(name);
    auto r = pg.exec("DELETE FROM ketch_resource_configs WHERE kind = $1 AND name = $2::bytea", {k, n});
    if (!r.ok()) return failure{r.error()};
    for (auto& [key, v] : configs) {
        auto i =
            pg.exec("INSERT INTO ketch_resource_configs (kind, name, config, value) VALUES ($1, $2::bytea, $3, $4)",
                    {k, n, key, v});
        if (!i.ok()) return failure{i.error()};
    }
    return ok_v;
}

}  // namespace

result<std::map<std::string, meta::config_map>, meta::store_error> pg_topic_store::load_broker_configs() {
    auto rows = session_.select("broker configs", "SELECT scope, name, value FROM ketch_broker_configs");
    if (!rows.ok()) return failure{rows.error()};
    std::map<std::string, meta::config_map> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) out[rows->at(i, 0)][rows->at(i, 1)] = rows->at(i, 2);
    return out;
}

status<meta::store_error> pg_topic_store::set_broker_configs(const std::string& scope,
                                                             const meta::config_map& configs) {
    return session_.transaction("broker configs", k_broker_configs_changed,
                                [&](cluster::pg_connection& pg) { return replace_broker_configs(pg, scope, configs); });
}

status<meta::store_error> pg_topic_store::update_broker_configs(const std::string& scope,
                                                                const meta::config_change& change) {
    return session_.transaction("broker configs", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        if (auto l = lock_set(pg, k_broker_configs_lock, scope); !l.ok()) return l;
        auto rows = pg.exec("SELECT name, value FROM ketch_broker_configs WHERE scope = $1", {scope});
        if (!rows.ok()) return failure{rows.error()};
        meta::config_map current;
        for (size_t i = 0; i < rows->rows.size(); ++i) current[rows->at(i, 0)] = rows->at(i, 1);
        auto next = change(current);
        if (!next) return ok_v;  // refused: nothing written, nothing announced
        if (auto w = replace_broker_configs(pg, scope, *next); !w.ok()) return w;
        return notify_commit(pg, k_broker_configs_changed);
    });
}

result<std::map<std::string, meta::config_map>, meta::store_error> pg_topic_store::load_resource_configs(
    meta::config_resource kind) {
    auto rows = session_.select("resource configs",
                                "SELECT encode(name, 'hex'), config, value FROM ketch_resource_configs WHERE kind = $1",
                                {std::to_string(kind_code(kind))});
    if (!rows.ok()) return failure{rows.error()};
    std::map<std::string, meta::config_map> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) out[from_hex(rows->at(i, 0))][rows->at(i, 1)] = rows->at(i, 2);
    return out;
}

status<meta::store_error> pg_topic_store::set_resource_configs(meta::config_resource kind, const std::string& name,
                                                               const meta::config_map& configs) {
    return session_.transaction("resource configs", k_resource_configs_changed, [&](cluster::pg_connection& pg) {
        return replace_resource_configs(pg, kind_code(kind), name, configs);
    });
}

status<meta::store_error> pg_topic_store::update_resource_configs(meta::config_resource kind, const std::string& name,
                                                                  const meta::config_change& change) {
    const int k = kind_code(kind);
    return session_.transaction("resource configs", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        if (auto l = lock_set(pg, k_resource_configs_lock + k, to_bytea_hex(name)); !l.ok()) return l;
        auto rows = pg.exec("SELECT config, value FROM ketch_resource_configs WHERE kind = $1 AND name = $2::bytea",
                            {std::to_string(k), to_bytea_hex(name)});
        if (!rows.ok()) return failure{rows.error()};
        meta::config_map current;
        for (size_t i = 0; i < rows->rows.size(); ++i) current[rows->at(i, 0)] = rows->at(i, 1);
        auto next = change(current);
        if (!next) return ok_v;
        if (auto w = replace_resource_configs(pg, k, name, *next); !w.ok()) return w;
        return notify_commit(pg, k_resource_configs_changed);
    });
}

}  // namespace ketch::shared
