#include "shared/janitor.h"

#include <spdlog/spdlog.h>

#include "base/clock.h"
#include "base/uuid.h"
#include "cluster/catalogue.h"
#include "shared/merger.h"

namespace ketch::shared {

namespace {

// The janitors of all brokers share this advisory lock (one works at a time).
constexpr const char* k_janitor_lock = "7263541209912";

// The tables whose rows are a partition's (topic_id, partition), batches first.
constexpr const char* k_partition_tables[] = {"ketch_batches",      "ketch_producer_batches",  "ketch_txn_open",
                                              "ketch_aborted_txns", "ketch_txn_marker_epochs", "ketch_partitions"};

}  // namespace

result<retention_pass, std::string> apply_retention_all(cluster::pg_connection& pg, const limits_of_topic& limits_of,
                                                        int64_t now_ms) {
    auto parts = cluster::list_partitions(pg);
    if (!parts.ok()) return failure{"listing partitions: " + parts.error().message};
    retention_pass out;
    for (const auto& [name, key] : *parts) {
        auto limits = limits_of(name);
        if (!limits || (limits->retention_ms < 0 && limits->retention_bytes < 0)) continue;
        ++out.partitions;
        auto r = cluster::apply_retention(pg, key, *limits, now_ms);
        if (!r.ok())
            return failure{"retention of " + name + "-" + std::to_string(key.partition) + ": " + r.error().message};
        out.batches_dropped += r->batches_dropped;
        if (!r->moved) continue;
        ++out.moved;
        spdlog::info("cluster: retention of {}-{}: log start now {} ({} batch(es) dropped)", name, key.partition,
                     r->log_start_offset, r->batches_dropped);
    }
    return out;
}

result<gc_result, std::string> collect_garbage(objstore::s3_client& s3, cluster::pg_connection& pg,
                                               std::chrono::milliseconds grace) {
    gc_result out;
    for (const char* table : k_partition_tables) {
        const bool batches = table == std::string("ketch_batches");
        // The index rows' objects noted for the marking below (ketch_gc_candidates).
        const std::string del = std::string("DELETE FROM ") + table +
                                " x WHERE NOT EXISTS (SELECT 1 FROM ketch_topics t WHERE t.topic_id = x.topic_id)";
        auto d = pg.exec(batches ? "WITH gone AS (" + del +
                                       " RETURNING object_key), noted AS (INSERT INTO ketch_gc_candidates "
                                       "(object_key) SELECT DISTINCT object_key FROM gone) SELECT count(*) FROM gone"
                                 : del);
        if (!d.ok())
            return failure{std::string("dropping deleted topics' rows of ") + table + ": " + d.error().message};
        if (batches) out.topic_rows_dropped = std::stoll(d->at(0, 0));
    }
    // Incremental: only the objects noted since the last pass (each statement
    // that drops or moves index rows notes their objects in its transaction).
    // One statement, one snapshot: the notes it takes are those of committed
    // transactions, whose rows are gone in the same snapshot; a note of a
    // transaction still running is not visible, so it stays for the next pass.
    // A commit's object row and its index rows appear together, so an object
    // seen here without rows has none for good.
    auto marked = pg.exec(
        "WITH noted AS (DELETE FROM ketch_gc_candidates RETURNING object_key) UPDATE ketch_objects o SET "
        "dead_since = now() WHERE o.object_key IN (SELECT object_key FROM noted) AND NOT o.swept AND "
        "o.dead_since IS NULL AND NOT EXISTS (SELECT 1 FROM ketch_batches b WHERE b.object_key = o.object_key)");
    if (!marked.ok()) return failure{"marking dead objects: " + marked.error().message};
    out.marked_dead = marked->affected;
    auto due = pg.exec(
        "SELECT object_key FROM ketch_objects WHERE dead_since IS NOT NULL AND dead_since < now() - $1::bigint * "
        "interval '1 millisecond' ORDER BY dead_since LIMIT 10000",
        {std::to_string(grace.count())});
    if (!due.ok()) return failure{"listing dead objects: " + due.error().message};
    for (size_t i = 0; i < due->rows.size(); ++i) {
        const auto& key = due->at(i, 0);
        auto d = s3.delete_object(key);
        if (!d.ok() && d.error().http_status != 404) return failure{"deleting " + key + ": " + d.error().describe()};
        auto row = pg.exec("DELETE FROM ketch_objects WHERE object_key = $1 AND dead_since IS NOT NULL", {key});
        if (!row.ok()) return failure{"forgetting " + key + ": " + row.error().message};
        ++out.deleted;
    }
    return out;
}

janitor::janitor(janitor_config cfg)
    : cfg_(std::move(cfg)),
      s3_(cfg_.where, cfg_.who),
      job_("janitor", *cfg_.jobs, k_janitor_lock, tick(), [this](cluster::pg_connection& pg) { pass(pg); }) {}

std::chrono::milliseconds janitor::tick() const {
    return cfg_.compaction_of ? std::min(cfg_.interval, cfg_.compact_interval) : cfg_.interval;
}

void janitor::pass(cluster::pg_connection& pg) {
    const int64_t now_ms = wall_ms();
    const auto now = std::chrono::steady_clock::now();
    if (cfg_.compaction_of && now - last_compaction_ >= cfg_.compact_interval) {
        last_compaction_ = now;
        compact(pg, now_ms);
    }
    if (now - last_upkeep_ < cfg_.interval) return;
    last_upkeep_ = now;
    if (cfg_.limits_of) {
        auto r = apply_retention_all(pg, cfg_.limits_of, now_ms);
        if (!r.ok()) spdlog::warn("cluster: janitor: {}", r.error());
    }
    if (auto e = cluster::expire_producers(pg, cfg_.producer_id_expiration_ms); !e.ok())
        spdlog::warn("cluster: janitor: expiring producers: {}", e.error().message);
    else if (*e)
        spdlog::info("cluster: {} row(s) of idempotent producers expired", *e);
    if (cfg_.merge_bytes) merge(pg);
    auto g = collect_garbage(s3_, pg, cfg_.grace);
    if (!g.ok()) return spdlog::warn("cluster: janitor: {}", g.error());
    if (g->topic_rows_dropped)
        spdlog::info("cluster: janitor dropped {} index row(s) of deleted topics", g->topic_rows_dropped);
    if (g->marked_dead || g->deleted)
        spdlog::info("cluster: garbage collection: {} object(s) dead, {} deleted after the grace period",
                     g->marked_dead, g->deleted);
}

void janitor::merge(cluster::pg_connection& pg) {
    // Keys unique to this pass: data/merged-<node>-<random>-<sequence>.
    const std::string prefix = "data/merged-" + std::to_string(cfg_.node_id) + "-" + uuid::random().to_base64() + "-";
    auto m = merge_small_objects(s3_, pg, cfg_.merge_bytes, 8 * cfg_.merge_bytes, prefix, cfg_.io_max_bytes_per_second);
    if (!m.ok()) return spdlog::warn("cluster: janitor: merging: {}", m.error());
    if (m->objects_written)
        spdlog::info("cluster: merged {} batch(es) of small objects into {} object(s), IO {} bytes, throttled {} ms",
                     m->batches_moved, m->objects_written, m->io_bytes, m->throttled_ms);
}

void janitor::compact(cluster::pg_connection& pg, int64_t now_ms) {
    // Keys unique to this pass: data/compacted-<node>-<random>-<sequence>.
    const std::string prefix =
        "data/compacted-" + std::to_string(cfg_.node_id) + "-" + uuid::random().to_base64() + "-";
    size_t n = 0;
    auto c = compact_all(
        s3_, pg, cfg_.compaction_of, now_ms, [&] { return prefix + std::to_string(n++); },
        cfg_.io_max_bytes_per_second);
    if (!c.ok()) spdlog::warn("cluster: janitor: compaction: {}", c.error());
}

}  // namespace ketch::shared
