#include "shared/sweeper.h"

#include <spdlog/spdlog.h>

namespace ketch::shared {

namespace {

// The sweepers of all brokers share this advisory lock (one sweeps at a time).
constexpr const char* k_sweep_lock = "7263541209911";

enum class verdict { kept, orphan };

// Is the object recorded by a commit, or is it ours to delete (claimed)?
result<verdict, std::string> claim(cluster::pg_connection& pg, const std::string& key) {
    auto claimed = pg.exec(
        "INSERT INTO ketch_objects (object_key, size_bytes, node_id, swept) VALUES ($1, 0, -1, true)"
        " ON CONFLICT (object_key) DO NOTHING RETURNING 1",
        {key});
    if (!claimed.ok()) return failure{"claiming " + key + ": " + claimed.error().message};
    if (!claimed->rows.empty()) return verdict::orphan;
    // A row was there: a commit's, or an earlier claim whose DELETE failed.
    auto row = pg.exec("SELECT swept FROM ketch_objects WHERE object_key = $1", {key});
    if (!row.ok()) return failure{"reading ketch_objects: " + row.error().message};
    if (!row->rows.empty() && row->at(0, 0) == "t") return verdict::orphan;
    return verdict::kept;
}

}  // namespace

result<sweep_result, std::string> sweep_orphans(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                const std::string& prefix,
                                                std::chrono::system_clock::time_point cutoff) {
    sweep_result out;
    std::string continuation;
    do {
        auto page = s3.list_objects(prefix, continuation);
        if (!page.ok()) return failure{"listing " + prefix + ": " + page.error().describe()};
        for (auto& o : page->objects) {
            ++out.listed;
            if (o.last_modified >= cutoff) {
                ++out.young;
                continue;
            }
            auto v = claim(pg, o.key);
            if (!v.ok()) return failure{v.error()};
            if (*v == verdict::kept) {
                ++out.kept;
                continue;
            }
            auto d = s3.delete_object(o.key);
            if (!d.ok() && d.error().http_status != 404)
                return failure{"deleting " + o.key + ": " + d.error().describe()};
            ++out.deleted;
        }
        continuation = page->next_continuation;
    } while (!continuation.empty());
    return out;
}

orphan_sweeper::orphan_sweeper(sweeper_config cfg)
    : cfg_(std::move(cfg)),
      s3_(cfg_.where, cfg_.who),
      job_("sweeper", *cfg_.jobs, k_sweep_lock, cfg_.interval, [this](cluster::pg_connection& pg) { sweep_once(pg); }) {
}

void orphan_sweeper::sweep_once(cluster::pg_connection& pg) {
    // Under the job's advisory lock; each claim commits on its own, before its DELETE.
    const auto cutoff = std::chrono::system_clock::now() - cfg_.grace;
    auto r = sweep_orphans(s3_, pg, "data/", cutoff);
    if (!r.ok()) return spdlog::warn("cluster: sweeper: {}", r.error());
    if (r->deleted) spdlog::info("cluster: sweeper deleted {} orphan object(s) of {} listed", r->deleted, r->listed);
}

}  // namespace ketch::shared
