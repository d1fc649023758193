#include "app/storage_engines.h"

#include <stdexcept>

#include "cluster/pg.h"
#include "meta/topic_name.h"
#include "objstore/s3_url.h"

namespace ketch::app {

storage_engines storage_engines::open(const options& opt, log::log_manager& logs, meta::topic_registry& topics) {
    storage_engines out;
    out.local = std::make_unique<partition::local_engine>(logs);
    if (opt.cluster.empty()) return out;
    // The same refusals, in the same words, as cluster_service's checks.
    if (auto why = cluster::check_postgres_url(opt.cluster)) throw std::runtime_error(*why);
    auto loc = objstore::parse_s3_url(opt.object_store);
    if (!loc.ok()) throw std::runtime_error("--object-store: " + loc.error());
    shared::engine_config cfg;
    cfg.pg_url = opt.cluster;
    cfg.where = *loc;
    cfg.who = objstore::credentials_from_environment();
    cfg.node_id = opt.node_id;
    cfg.flush_interval = std::chrono::milliseconds(opt.cluster_flush_ms);
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

}  // namespace ketch::app
