#include "app/pg_schema_store.h"

#include <functional>

namespace ketch::app {

namespace {

using cluster::pg_connection;
using cluster::pg_error;
using shared::from_hex;
using shared::to_bytea_hex;
namespace reg = registry;

reg::store_error failed(const meta::store_error& e) { return {e.message}; }

status<pg_error> exec(pg_connection& pg, const std::string& sql, const cluster::pg_params& params) {
    auto r = pg.exec(sql, params);
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

status<pg_error> load_schemas(pg_connection& pg, reg::store_snapshot& s) {
    auto rows = pg.exec("SELECT id, type, encode(text, 'hex'), refs FROM ketch_registry_schemas ORDER BY id");
    if (!rows.ok()) return failure{rows.error()};
    for (size_t i = 0; i < rows->rows.size(); ++i)
        s.schemas.push_back({std::stoll(rows->at(i, 0)),
                             reg::parse_schema_type(rows->at(i, 1)).value_or(reg::schema_type::avro),
                             from_hex(rows->at(i, 2)), reg::refs_from_json(rows->at(i, 3))});
    auto vs = pg.exec(
        "SELECT encode(subject, 'hex'), version, schema_id, deleted FROM ketch_registry_versions "
        "ORDER BY subject, version");
    if (!vs.ok()) return failure{vs.error()};
    for (size_t i = 0; i < vs->rows.size(); ++i)
        s.subjects[from_hex(vs->at(i, 0))].push_back(
            {int32_t(std::stol(vs->at(i, 1))), std::stoll(vs->at(i, 2)), vs->at(i, 3) == "t"});
    return ok_v;
}

status<pg_error> load_settings(pg_connection& pg, reg::store_snapshot& s) {
    auto cs = pg.exec("SELECT encode(subject, 'hex'), compatibility FROM ketch_registry_configs");
    if (!cs.ok()) return failure{cs.error()};
    for (size_t i = 0; i < cs->rows.size(); ++i)
        if (auto l = reg::parse_compat_level(cs->at(i, 1))) s.configs[from_hex(cs->at(i, 0))] = *l;
    auto ms = pg.exec("SELECT encode(subject, 'hex'), mode FROM ketch_registry_modes");
    if (!ms.ok()) return failure{ms.error()};
    for (size_t i = 0; i < ms->rows.size(); ++i)
        if (auto m = reg::parse_mode(ms->at(i, 1))) s.modes[from_hex(ms->at(i, 0))] = *m;
    return ok_v;
}

}  // namespace

status<pg_error> pg_schema_store::load_into(pg_connection& pg, reg::store_snapshot& s) {
    auto n = pg.exec("SELECT seq FROM ketch_registry_changes");
    if (!n.ok()) return failure{n.error()};
    const int64_t seq = n->rows.empty() ? 0 : std::stoll(n->at(0, 0));
    if (auto r = load_schemas(pg, s); !r.ok()) return r;
    if (auto r = load_settings(pg, s); !r.ok()) return r;
    known_.store(seq);
    return ok_v;
}

result<reg::store_snapshot, reg::store_error> pg_schema_store::load() {
    reg::store_snapshot s;
    if (tx_) {  // under the write lock: the tables as they are, nobody else writes
        if (auto r = load_into(*tx_, s); !r.ok()) {
            failed_ = true;
            return failure{failed(shared::pg_failed("schema registry: load", r.error()))};
        }
        return s;
    }
    // One snapshot of every table and the change number it holds.
    auto st = session_.transaction("schema registry: load", [&](pg_connection& pg) -> status<pg_error> {
        if (auto r = pg.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"); !r.ok()) return r;
        return load_into(pg, s);
    });
    if (!st.ok()) return failure{failed(st.error())};
    return s;
}

result<bool, reg::store_error> pg_schema_store::changed() {
    auto n = session_.select("schema registry: change number", "SELECT seq FROM ketch_registry_changes");
    if (!n.ok()) return failure{failed(n.error())};
    return n->rows.empty() || std::stoll(n->at(0, 0)) != known_.load();
}

result<bool, reg::store_error> pg_schema_store::begin_writes() {
    std::unique_lock l(session_.mu());
    auto c = session_.conn();
    if (!c.ok()) return failure{failed(c.error())};
    auto& pg = **c;
    if (auto b = pg.run("BEGIN"); !b.ok()) {
        session_.release();
        return failure{failed(shared::pg_failed("schema registry: begin", b.error()))};
    }
    // The lock every registry write of every broker takes, to its COMMIT.
    auto n = pg.exec("SELECT seq FROM ketch_registry_changes FOR UPDATE");
    if (!n.ok()) {
        (void)pg.run("ROLLBACK");
        session_.release();
        return failure{failed(shared::pg_failed("schema registry: lock", n.error()))};
    }
    writing_ = std::move(l);
    tx_ = &pg;
    wrote_ = failed_ = false;
    return n->rows.empty() || std::stoll(n->at(0, 0)) != known_.load();
}

status<reg::store_error> pg_schema_store::end_writes(bool commit) {
    if (!tx_) return ok_v;
    auto& pg = *tx_;
    tx_ = nullptr;
    status<reg::store_error> out = ok_v;
    if (commit && wrote_ && !failed_) {
        auto n = pg.exec("UPDATE ketch_registry_changes SET seq = seq + 1 RETURNING seq");
        auto done = n.ok() ? pg.run("COMMIT") : status<pg_error>(failure{n.error()});
        if (n.ok() && done.ok()) {
            known_.store(n->rows.empty() ? -1 : std::stoll(n->at(0, 0)));
        } else {  // kept or not: the next refresh loads what is there
            (void)pg.run("ROLLBACK");
            known_.store(-1);
            out = failure{failed(shared::pg_failed("schema registry: commit", n.ok() ? done.error() : n.error()))};
        }
    } else {
        (void)pg.run("ROLLBACK");
        if (commit && failed_) out = failure{reg::store_error{"schema registry: a write failed: nothing was kept"}};
    }
    session_.release();
    writing_.unlock();
    return out;
}

status<reg::store_error> pg_schema_store::change(const char* what, const body_fn& body) {
    if (!tx_) return failure{reg::store_error{std::string(what) + ": not between begin_writes() and end_writes()"}};
    if (failed_) return failure{reg::store_error{std::string(what) + ": an earlier write of the transaction failed"}};
    auto r = body(*tx_);
    if (!r.ok()) {
        failed_ = true;
        return failure{failed(shared::pg_failed(what, r.error()))};
    }
    wrote_ = true;
    return ok_v;
}

status<reg::store_error> pg_schema_store::put_version(const std::optional<reg::stored_schema>& schema,
                                                      const std::string& subject, const reg::version_entry& v) {
    return change("schema registry: register", [&](pg_connection& pg) -> status<pg_error> {
        if (schema)
            if (auto r =
                    exec(pg, "INSERT INTO ketch_registry_schemas (id, type, text, refs) VALUES ($1, $2, $3::bytea, $4)",
                         {std::to_string(schema->id), std::string(reg::to_string(schema->type)),
                          to_bytea_hex(schema->text), reg::refs_to_json(schema->refs)});
                !r.ok())
                return r;
        return exec(pg,
                    "INSERT INTO ketch_registry_versions (subject, version, schema_id, deleted) "
                    "VALUES ($1::bytea, $2, $3, $4) ON CONFLICT (subject, version) DO UPDATE "
                    "SET schema_id = EXCLUDED.schema_id, deleted = EXCLUDED.deleted",
                    {to_bytea_hex(subject), std::to_string(v.version), std::to_string(v.id), v.deleted ? "t" : "f"});
    });
}

status<reg::store_error> pg_schema_store::mark_deleted(const std::string& subject,
                                                       const std::vector<int32_t>& versions) {
    return change("schema registry: soft delete", [&](pg_connection& pg) -> status<pg_error> {
        for (auto ver : versions)
            if (auto r = exec(pg,
                              "UPDATE ketch_registry_versions SET deleted = true WHERE subject = $1::bytea "
                              "AND version = $2",
                              {to_bytea_hex(subject), std::to_string(ver)});
                !r.ok())
                return r;
        return ok_v;
    });
}

status<reg::store_error> pg_schema_store::remove_versions(const std::string& subject,
                                                          const std::vector<int32_t>& versions) {
    return change("schema registry: permanent delete", [&](pg_connection& pg) -> status<pg_error> {
        for (auto ver : versions)
            if (auto r = exec(pg, "DELETE FROM ketch_registry_versions WHERE subject = $1::bytea AND version = $2",
                              {to_bytea_hex(subject), std::to_string(ver)});
                !r.ok())
                return r;
        return ok_v;
    });
}

status<reg::store_error> pg_schema_store::setting(const char* what, const std::string& upsert,
                                                  const std::string& remove, const std::string& subject,
                                                  std::optional<std::string> value) {
    return change(what, [&](pg_connection& pg) -> status<pg_error> {
        if (value) return exec(pg, upsert, {to_bytea_hex(subject), *value});
        return exec(pg, remove, {to_bytea_hex(subject)});
    });
}

status<reg::store_error> pg_schema_store::put_config(const std::string& subject,
                                                     std::optional<reg::compat_level> level) {
    return setting("schema registry: config",
                   "INSERT INTO ketch_registry_configs (subject, compatibility) VALUES ($1::bytea, $2) "
                   "ON CONFLICT (subject) DO UPDATE SET compatibility = EXCLUDED.compatibility",
                   "DELETE FROM ketch_registry_configs WHERE subject = $1::bytea", subject,
                   level ? std::optional<std::string>(std::string(reg::to_string(*level))) : std::nullopt);
}

status<reg::store_error> pg_schema_store::put_mode(const std::string& subject, std::optional<reg::mode> m) {
    return setting("schema registry: mode",
                   "INSERT INTO ketch_registry_modes (subject, mode) VALUES ($1::bytea, $2) "
                   "ON CONFLICT (subject) DO UPDATE SET mode = EXCLUDED.mode",
                   "DELETE FROM ketch_registry_modes WHERE subject = $1::bytea", subject,
                   m ? std::optional<std::string>(std::string(reg::to_string(*m))) : std::nullopt);
}

}  // namespace ketch::app
