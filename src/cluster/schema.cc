#include "cluster/schema.h"

#include <string>

namespace ketch::cluster {

result<int, pg_error> migrate(pg_connection& c) {
    if (auto s = c.run("BEGIN"); !s.ok()) return failure{s.error()};
    auto fail = [&c](pg_error e) {
        (void)c.run("ROLLBACK");
        return failure{std::move(e)};
    };
    // "relation ketch_schema already exists" is no news to anyone.
    if (auto s = c.run("SET LOCAL client_min_messages = warning"); !s.ok()) return fail(s.error());
    auto lock = c.exec("SELECT pg_advisory_xact_lock($1)", {std::to_string(k_migration_lock)});
    if (!lock.ok()) return fail(lock.error());
    if (auto s = c.run("CREATE TABLE IF NOT EXISTS ketch_schema (singleton boolean PRIMARY KEY DEFAULT true "
                       "CHECK (singleton), version integer NOT NULL)");
        !s.ok())
        return fail(s.error());
    auto v = c.exec("SELECT version FROM ketch_schema");
    if (!v.ok()) return fail(v.error());
    const int known = int(migrations().size());
    int version = v->rows.empty() ? 0 : std::stoi(v->at(0, 0));
    if (version > known)
        return fail({"the cluster's schema is at version " + std::to_string(version) + ", this ketch knows " +
                         std::to_string(known) + " (a newer ketch wrote it)",
                     "", false});
    for (int i = version; i < known; ++i)
        if (auto s = c.run(migrations()[size_t(i)]); !s.ok()) return fail(s.error());
    if (version < known) {
        auto up = c.exec(
            "INSERT INTO ketch_schema (version) VALUES ($1) "
            "ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version",
            {std::to_string(known)});
        if (!up.ok()) return fail(up.error());
    }
    if (auto s = c.run("COMMIT"); !s.ok()) return failure{s.error()};
    return known;
}

}  // namespace ketch::cluster
