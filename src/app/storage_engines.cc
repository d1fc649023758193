#include "app/storage_engines.h"

#include <chrono>
#include <memory>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "app/cluster_groups.h"
#include "base/read_through_limit.h"
#include "cluster/pg.h"
#include "cluster/schema.h"
#include "group/coordinator.h"
#include "meta/topic_name.h"
#include "objstore/s3_url.h"
#include "partition/settings.h"
#include "shared/pg_topic_store.h"

namespace ketch::app {

namespace {

// The topics as PostgreSQL holds them now, applied to the open partitions
// (on a NOTIFY of a change, and a request's read-through); false when the
// read failed (logged).
bool reload_topics(meta::topic_registry& topics, partition::service& partitions) {
    auto r = topics.reload_topics();
    if (!r.ok()) {
        spdlog::warn("cluster: reloading topics: {}", r.error().message);
        return false;
    }
    for (auto& t : r->removed) partitions.remove_topic(t);
    for (auto& t : r->changed) partitions.apply_topic_settings(t);
    return true;
}

// A request's read-through (broker_context::read_topics_through): the names
// `limit` lets through, read from PostgreSQL in one query; the topics found
// added and applied to the open partitions, each logged.
bool read_topics_through(broker::broker_context& ctx, read_through_limit& limit,
                         const std::vector<std::string>& missing) {
    std::vector<std::string> names;
    for (auto& name : missing) {
        if (limit.allow(name))
            names.push_back(name);
        else
            spdlog::debug(
                "cluster: topic {:?} unknown here; not read from PostgreSQL (read within the second, or "
                "over {} names a second)",
                name, storage_engines::k_topic_reads_per_second);
    }
    if (names.empty()) return false;
    auto added = ctx.topics.read_through(names);
    if (!added.ok()) {
        spdlog::warn("cluster: reading topics through: {}", added.error().message);
        return false;
    }
    for (auto& t : *added) {
        ctx.partitions.apply_topic_settings(t);
        spdlog::info(
            "cluster: topic {} read through from PostgreSQL: it was created before this broker heard the "
            "notification",
            t.name);
    }
    return true;
}

}  // namespace

storage_engines storage_engines::open(const options& opt, cluster::pg_pool* pg, log::log_manager& logs,
                                      meta::topic_registry& topics) {
    storage_engines out;
    out.local = std::make_unique<partition::local_engine>(logs);
    if (opt.cluster.empty()) return out;
    auto loc = objstore::parse_s3_url(opt.object_store);
    if (!loc.ok()) throw std::runtime_error("--object-store: " + loc.error());
    shared::engine_config cfg;
    cfg.pg_url = opt.cluster;
    cfg.pool = pg;
    cfg.where = *loc;
    cfg.who = objstore::credentials_from_environment();
    out.jobs = std::make_unique<shared::job_session>(
        cluster::with_application_name(opt.cluster, "ketch-" + std::to_string(opt.node_id) + "-jobs"));
    out.sweeper = std::make_unique<shared::orphan_sweeper>(shared::sweeper_config{
        out.jobs.get(), cfg.where, cfg.who, std::chrono::milliseconds(opt.cluster_sweep_interval_ms),
        std::chrono::milliseconds(opt.cluster_sweep_grace_ms)});
    out.janitor = std::make_unique<shared::janitor>(shared::janitor_config{
        out.jobs.get(), cfg.where, cfg.who, std::chrono::milliseconds(opt.retention_check_ms),
        std::chrono::milliseconds(opt.cluster_gc_grace_ms),
        [&topics](const std::string& name) -> std::optional<cluster::retention_limits> {
            auto t = topics.find(name);
            if (!t || !t->settings.cleanup_delete) return std::nullopt;  // compacted-only: compaction_of's
            return cluster::retention_limits{t->settings.retention_ms, t->settings.retention_bytes};
        },
        static_cast<uint64_t>(opt.cluster_merge_bytes), opt.node_id,
        [&topics](const std::string& name) -> std::optional<log::compaction_config> {
            auto t = topics.find(name);
            if (!t || !t->settings.cleanup_compact) return std::nullopt;
            return partition::to_compaction_config(t->settings);
        },
        std::chrono::milliseconds(opt.log_cleaner_backoff_ms), opt.producer_id_expiration_ms,
        opt.log_cleaner_io_max_bytes_per_second});
    cfg.node_id = opt.node_id;
    cfg.flush_interval = std::chrono::milliseconds(opt.cluster_flush_ms);
    cfg.flush_bytes = static_cast<uint64_t>(opt.cluster_flush_bytes);
    cfg.cache_dir = opt.cluster_cache_dir;
    cfg.cache_dir_bytes = static_cast<uint64_t>(opt.cluster_cache_dir_bytes);
    cfg.reads.whole_below = static_cast<uint64_t>(opt.cluster_read_whole_bytes);
    cfg.topic_id_of = [&topics](const std::string& name) -> std::optional<std::string> {
        auto t = topics.by_name(name);
        if (!t) return std::nullopt;
        return t->id.to_base64();
    };
    cfg.is_local = [](const std::string& name) { return meta::is_internal_topic(name); };
    cfg.local = out.local.get();
    auto e = shared::shared_engine::open(std::move(cfg));
    if (!e.ok()) throw std::runtime_error("--cluster: " + e.error());
    out.shared = std::move(*e);
    return out;
}

std::unique_ptr<cluster::pg_pool> storage_engines::pg_pool_of(const options& opt) {
    if (opt.cluster.empty()) return nullptr;
    cluster::pg_pool_config cfg;
    cfg.url = cluster::with_application_name(opt.cluster, "ketch-" + std::to_string(opt.node_id) + "-pool");
    cfg.max = static_cast<size_t>(opt.cluster_pg_connections);
    return std::make_unique<cluster::pg_pool>(std::move(cfg));
}

std::unique_ptr<meta::store> storage_engines::topic_store(const options& opt, cluster::pg_pool* pg) {
    if (!pg) return nullptr;
    // Before anything reads PostgreSQL: the URL's check and the schema, with
    // the same refusals, in the same words, as cluster_service's.
    if (auto why = cluster::check_postgres_url(opt.cluster)) throw std::runtime_error(*why);
    auto c = pg->take();
    if (!c.ok()) throw std::runtime_error("--cluster: cannot connect to PostgreSQL: " + c.error().message);
    if (auto m = cluster::migrate(**c); !m.ok()) throw std::runtime_error("--cluster: schema: " + m.error().message);
    return std::make_unique<shared::pg_topic_store>(*pg);
}

void storage_engines::attach(log::log_manager& logs, meta::topic_registry& topics, partition::service& partitions,
                             txn::producer_ids& producer_ids) {
    // A marker may move a partition's LSO: wake read_committed long polls.
    logs.set_marker_listener(
        [&partitions](const log::topic_partition& tp) { partitions.waiters().notify(tp.topic, tp.partition); });
    if (!shared) return;
    shared->set_on_commit(
        [&partitions](const std::string& topic, int32_t p) { partitions.waiters().notify(topic, p); });
    shared->set_on_topics([&topics, &partitions] { reload_topics(topics, partitions); });
    shared->set_on_notice(shared::k_broker_configs_changed, [&topics, &partitions] {
        if (auto r = topics.reload_broker_configs(); !r.ok())
            return spdlog::warn("cluster: reloading dynamic broker configs: {}", r.error().message);
        for (auto& t : topics.list()) partitions.apply_topic_settings(t);
    });
    producer_ids.set_block_source([e = shared.get()] { return e->reserve_producer_ids(txn::producer_ids::k_block); });
}

void storage_engines::attach_reads(broker::broker_context& ctx, shared::pg_offset_store* offsets) {
    if (!shared || !offsets) return;
    // A transaction's end, completed in PostgreSQL by its coordinator (this
    // broker's own too): the group coordinator takes the store as the truth
    // (group/txn_end.cc), the notification may be late.
    shared->set_on_txn_end([&ctx, offsets](int64_t producer_id, bool commit) {
        ctx.run_blocking([&ctx, offsets, producer_id, commit] {
            if (!ctx.groups.txn_offsets_completed(producer_id, commit, cluster_groups::txn_reads(*offsets)))
                spdlog::warn("cluster: producer {}'s transaction end: reading its offsets failed", producer_id);
        });
    });
    // broker/topic_read_through.h: a request naming topics not heard of yet.
    ctx.read_topics_through =
        [&ctx, limit = std::make_shared<read_through_limit>(std::chrono::seconds(1), k_topic_reads_per_second)](
            const std::vector<std::string>& missing) { return read_topics_through(ctx, *limit, missing); };
    reads = std::make_unique<boost::asio::thread_pool>(k_read_threads);
    ctx.run_reads = [pool = reads.get()](std::function<void()> fn) { boost::asio::post(*pool, std::move(fn)); };
}

void storage_engines::stop_reads() {
    if (reads) reads->join();
}

}  // namespace ketch::app
