#include "app/run_broker.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <thread>

#include <sys/resource.h>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include "app/cluster_groups.h"
#include "app/cluster_id.h"
#include "app/cluster_security.h"
#include "app/cluster_service.h"
#include "app/cluster_tenant_storage.h"
#include "app/cluster_tenants.h"
#include "app/console_service.h"
#include "app/data_dir_lock.h"
#include "app/fault_service.h"
#include "app/group_service.h"
#include "app/kafka_listeners.h"
#include "app/metrics_server.h"
#include "app/schema_registry.h"
#include "app/security_services.h"
#include "app/share_service.h"
#include "app/storage_engines.h"
#include "app/stores.h"
#include "app/txn_service.h"
#include "broker/broker_context.h"
#include "broker/dispatcher.h"
#include "broker/offsets_topic.h"
#include "broker/tenant_limits.h"
#include "fetch/session_cache.h"
#include "inspect/traffic_ring.h"
#include "io/posix_file_system.h"
#include "log/log_manager.h"
#include "meta/topic_registry.h"
#include "net/server.h"
#include "partition/service.h"
#include "partition/tasks.h"
#include "shared/pg_topic_store.h"
#include "telemetry/client_metrics_manager.h"
#include "tenant/names.h"
#include "txn/producer_ids.h"

namespace ketch::app {

namespace {

// meta.db's topics, or in cluster mode PostgreSQL's (stores::cluster_topics);
// cluster mode's stores take their connections from `pg` (stores::cluster_pg).
std::unique_ptr<meta::topic_registry> open_topics(stores& st, const options& opt, cluster::pg_pool* pg) {
    st.cluster_pg = pg;
    st.cluster_topics = storage_engines::topic_store(opt, st.cluster_pg);
    open_cluster_security(st, opt);  // with --cluster: ACLs, SCRAM users, quotas in PostgreSQL
    meta::store& s = st.cluster_topics ? *st.cluster_topics : *st.meta;
    auto topics = meta::topic_registry::open(s, meta::broker_defaults{}, {}, std::to_string(opt.node_id));
    if (!topics.ok()) throw std::runtime_error("topics: " + topics.error().message);
    return std::move(*topics);
}

// The console's view of a partition's segment files.
std::function<std::vector<console::segment_row>(const std::string&, int32_t)> segments_of(log::log_manager& logs) {
    return [&logs](const std::string& topic, int32_t p) {
        std::vector<console::segment_row> rows;
        if (auto log = logs.get({topic, p}))
            for (auto& s : log->segments())
                rows.push_back({s.base_offset, s.next_offset, s.size_bytes, s.created_ms, s.max_timestamp});
        return rows;
    };
}

// --log-max-open-files: 0 picks a quarter of the open-file limit (the rest is
// for connections, index and metadata files), -1 none (every segment open).
size_t segment_file_budget(int64_t flag) {
    if (flag < 0) return 0;
    if (flag > 0) return size_t(flag);
    rlimit rl{};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 65536;
    return std::max<size_t>(64, rl.rlim_cur / 4);
}

// <data-dir>/logs, every partition opened with the default config (the
// topics' own settings are applied once the broker's context exists).
std::unique_ptr<log::log_manager> open_logs(const options& opt, const fault_service& faults) {
    log::log_manager::options lopt;
    lopt.fs = faults.wrap(std::make_shared<io::posix_file_system>());
    lopt.data_dir = (std::filesystem::path(opt.data_dir) / "logs").string();
    lopt.default_config.flush_interval_ms = opt.flush_ms;
    lopt.max_open_segment_files = segment_file_budget(opt.log_max_open_files);
    auto logs = log::log_manager::open(std::move(lopt));
    if (!logs.ok()) throw std::runtime_error("logs: " + logs.error().message);
    return std::move(*logs);
}

std::unique_ptr<meta::resource_config_registry> open_client_metrics(meta::store& s) {
    // Client metrics subscriptions (meta.db; PostgreSQL in cluster mode): kept and described; with the
    // console they are the telemetry subscriptions (telemetry/).
    auto r = meta::resource_config_registry::open(s, meta::config_resource::client_metrics);
    if (!r.ok()) throw std::runtime_error("client metrics: " + r.error().message);
    return std::move(*r);
}

// Cluster mode: GROUP and CLIENT_METRICS configs another broker changed are
// read again; the registries are the broker's (ctx).
notice_follower follow_resource_configs(storage_engines& storage, broker::broker_context& ctx, group_service& groups,
                                        meta::resource_config_registry& client_metrics) {
    ctx.group_configs = groups.configs.get();
    ctx.client_metrics_configs = &client_metrics;
    return {storage, shared::k_resource_configs_changed, [&groups, &client_metrics] {
                for (auto* r : {groups.configs.get(), &client_metrics})
                    if (auto done = r->reload(); !done.ok())
                        spdlog::warn("cluster: reloading GROUP/CLIENT_METRICS configs: {}", done.error().message);
            }};
}

void configure(broker::broker_config& c, const options& opt) {
    c.node_id = opt.node_id;
    c.cluster_id = load_or_create_cluster_id(opt.data_dir);
    c.auto_create_topics = opt.auto_create_topics;
    c.default_partitions = opt.default_partitions;
    c.max_request_bytes = opt.max_request_bytes;
}

// The ready file (--ready-file: the first listener's host:port), then the start-up lines.
void announce(const options& opt, double ms, const std::vector<listener_endpoint>& endpoints,
              const broker::broker_config& c, int reactors, const std::string& self_signed) {
    auto& first = endpoints.front();
    if (!opt.ready_file.empty()) write_file_atomically(opt.ready_file, first.host + ":" + std::to_string(first.port));
    const std::string& data_dir = opt.data_dir;
    spdlog::info("ketch ready in {:.1f} ms: listening on {}:{} (data in {}, {} reactors)", ms, first.host, first.port,
                 data_dir, reactors);
    for (auto& e : endpoints)
        spdlog::info("listener {} ({}) on {}:{}, advertised as {}:{}", e.name, e.protocol, e.host, e.port,
                     e.advertised_host, e.advertised_port);
    if (!self_signed.empty())
        spdlog::info("TLS: self-signed certificate for localhost in {} (clients: ssl.ca.location={})", self_signed,
                     self_signed);
    spdlog::info("connect with: bootstrap.servers={}:{}   (e.g. kcat -b {}:{} -L)", c.advertised_host,
                 c.advertised_port, c.advertised_host, c.advertised_port);
}

// What the console reads from the request path: the traffic inspector, and
// KIP-714 client telemetry for its Clients page (served and advertised only
// with the console; CLIENT_METRICS resources are its subscriptions).
// The console's feeds (with --console): the traffic inspector, client
// telemetry, and in cluster mode the pages other brokers' consoles ask for.
void attach_console_feeds(const options& opt, broker::broker_context& ctx, inspect::traffic_ring& traffic,
                          telemetry::client_metrics_manager& telemetry, meta::resource_config_registry& client_metrics,
                          console_pages_slot& pages) {
    if (!opt.console) return;
    if (!opt.cluster.empty()) ctx.console_pages = pages.forwarder();
    ctx.traffic = &traffic;
    ctx.telemetry = &telemetry;
    client_metrics.set_listener(
        [&telemetry](const std::string& name, const meta::config_map& c) { telemetry.update_subscription(name, c); });
}

// The background passes, then (cluster mode) the shared log, which flushes
// what is staged: its answers go to the stopped reactors, which still exist.
// Retention and compaction of the local logs, running until stop_storage.
struct log_tasks {
    std::unique_ptr<partition::retention_task> retention;
    std::unique_ptr<partition::cleaner_task> cleaner;
};

log_tasks start_log_tasks(partition::service& partitions, const options& opt) {
    return {std::make_unique<partition::retention_task>(partitions, opt.retention_check_ms),
            std::make_unique<partition::cleaner_task>(partitions, opt.log_cleaner_backoff_ms,
                                                      opt.log_cleaner_io_max_bytes_per_second)};
}

// Fetch's offloaded reads, then the background tasks, then the shared log, then the local logs.
void stop_storage(log_tasks& tasks, storage_engines& storage, log::log_manager& logs) {
    storage.stop_reads();
    tasks.cleaner.reset();
    tasks.retention.reset();
    storage.janitor.reset();  // reads the topics' settings
    if (storage.shared) {
        auto n = storage.shared->pool().stats();
        spdlog::info("cluster: PostgreSQL pool: at most {} of {} open, {} takes waited, {} timed out, {} nested",
                     n.peak, storage.shared->pool().config().max, n.waited, n.timed_out, n.nested);
    }
    storage.shared.reset();
    if (auto s = logs.close(); !s.ok()) spdlog::error("closing logs: {}", s.error().message);
}

// The broker's thread pools besides the reactors.
struct broker_pools {
    boost::asio::thread_pool blocking{2};  // fsyncs of commits, transaction markers
    // Large Produce requests' appends (broker/produce_appends.h): a thread per core.
    boost::asio::thread_pool appends{std::max(2u, std::thread::hardware_concurrency())};
    void attach(broker::broker_context& ctx) {
        ctx.run_blocking = [this](std::function<void()> fn) { boost::asio::post(blocking, std::move(fn)); };
        ctx.run_appends = [this](std::function<void()> fn) { boost::asio::post(appends, std::move(fn)); };
    }
    void join() {
        blocking.join();
        appends.join();
    }
};

// The cluster's store when there is one, else the local one.
template <class Shared>
meta::offset_store& either(Shared& cluster, meta::offset_store& local) {
    if (cluster) return *cluster;
    return local;
}

template <class... Service>
void stop_each(Service&... service) {
    (service.stop(), ...);
}

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

int wait_for_signal() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int sig = 0;
    sigwait(&set, &sig);
    return sig;
}

partition::service_config service_config_of(const options& opt) {
    return {.flush_ms = opt.flush_ms, .producer_id_expiration_ms = opt.producer_id_expiration_ms};
}

// A tenant's bytes as its max_storage_bytes is checked (the metrics page).
tenant_bytes_fn storage_checked(broker::broker_context& ctx) {
    return [&ctx](const std::string& t) { return broker::storage_of(ctx, tenant::scope(t)); };
}

// Deleting a tenant removes its transactional ids (console/tenant_purge.cc),
// waiting up to 30 s for an aborted transaction's markers.
decltype(console::context::purge_transactions) purge_of(txn_service& txns) {
    return [&txns](const auto& owned) {
        auto r = txns.coordinator().purge(owned, 30000);
        return console::txn_purge{int64_t(r.removed), int64_t(r.aborted), int64_t(r.left)};
    };
}

// Parked JoinGroup/SyncGroup requests are answered NOT_COORDINATOR while
// the listener still runs; later group requests COORDINATOR_NOT_AVAILABLE.
void stop_coordinators(group_service& groups, share_service& shares, txn_service& txns) {
    groups.coordinator->shutdown();
    shares.timer->stop();
    txns.shutdown();
}

}  // namespace

int run_broker(const options& opt, const resolved_listeners& lis, std::chrono::steady_clock::time_point started) {
    auto pg = storage_engines::pg_pool_of(opt);             // cluster mode: first made, last closed
    auto faults = fault_service::from(opt, lis, pg.get());  // before anything starts: may refuse
    std::filesystem::create_directories(opt.data_dir);
    data_dir_lock dir_lock(opt.data_dir);  // before anything in it is opened
    auto st = stores::open(opt.data_dir);
    auto topics = open_topics(st, opt, pg.get());
    auto logs = open_logs(opt, faults);
    auto storage = storage_engines::open(opt, pg.get(), *logs, *topics);  // the shared log with --cluster
    partition::service partitions(*topics, storage.engine(), service_config_of(opt));
    txn::producer_ids producer_ids(opt.data_dir);
    storage.attach(*logs, *topics, partitions, producer_ids);     // wake-ups; cluster: topic reloads, producer ids
    notice_follower faults_follower = faults.follow(storage);     // cluster: the cluster's faults
    auto cluster_offsets = cluster_groups::open_store(pg.get());  // cluster mode: offsets in PostgreSQL
    meta::offset_store& offsets_store = either(cluster_offsets, *st.offsets);
    broker::offsets_topic offsets_topic(offsets_store, *topics, partitions);  // __consumer_offsets, from the store
    partitions.apply_topic_configs();
    offsets_topic.open();  // made exact before the groups load from offsets.db
    group_service groups(opt, st, offsets_topic, *topics);
    broker_pools pools;
    broker::broker_context ctx{{}, *topics, partitions, producer_ids, *groups.coordinator, {}};
    fetch::session_cache fetch_sessions({.max_slots = opt.max_incremental_fetch_session_cache_slots});
    ctx.fetch_sessions = &fetch_sessions;
    configure(ctx.config, opt);
    auto client_metrics = open_client_metrics(st.configs());
    notice_follower configs_follower = follow_resource_configs(storage, ctx, groups, *client_metrics);
    share_service shares(opt, st, *topics, groups, ctx);  // sets ctx.shares
    pools.attach(ctx);
    storage.attach_reads(ctx, cluster_offsets.get());  // cluster: Fetch's reads off the reactors, txn ends heard
    security_services security(opt, st);
    security.attach(ctx);
    cluster_tenant_storage tenant_storage(opt, storage, security, ctx);  // cluster: the tenants' bytes
    cluster_security_follower following(storage, st, security);          // reloads on other brokers' changes
    security.start_token_sweep(groups.timers, opt.delegation_token_expiry_check_interval_ms);
    txn_service txns(opt, st, ctx, groups, producer_ids, pools.blocking);

    inspect::traffic_ring traffic;  // the console's inspector; recording only while a page watches
    telemetry::client_metrics_manager telemetry;
    console_pages_slot console_pages;  // cluster mode: the pages other brokers' consoles ask for
    attach_console_feeds(opt, ctx, traffic, telemetry, *client_metrics, console_pages);
    ctx.faults = faults.registry.get();
    ctx.consumer_offsets = &offsets_topic;
    broker::dispatcher dispatch(ctx);
    auto kafka = kafka_listeners::from(opt, lis);
    net::server server(kafka.server, dispatch);
    cluster_tenants tenant_purge(opt, storage, security, dispatch, server.reactor(0), purge_of(txns));
    server.set_ip_rate_check([&security](const std::string& ip) { return security.record_connection(ip); });
    auto endpoints = publish_endpoints(ctx.config, lis, server.listen());
    ctx.config.static_properties = static_broker_properties(opt, endpoints);
    auto cluster = cluster_service::start(opt, ctx, endpoints);  // nothing without --cluster; deregisters at exit
    cluster.follow(opt, {cluster_offsets.get(), *groups.coordinator}, {txns.cluster_store(), txns.coordinator()});
    shares.follow(cluster.membership.get(), opt.node_id, storage.shared);
    server.start();
    auto log_tasks = start_log_tasks(partitions, opt);
    auto metrics =
        metrics_server::start(opt.metrics_listen, server.stats(), dispatch.metrics(), &security.quotas(),
                              faults.registry.get(), &fetch_sessions, security.tenant_catalog(), storage_checked(ctx));

    auto schema_registry = start_schema_registry(opt, st.credentials_in_use(), ctx.authorizer, pg.get());
    auto console =
        start_console(opt, {dispatch, server.reactor(0), dispatch.metrics(), server.stats(), st.credentials_in_use(),
                            endpoints, schema_registry.url, started, &traffic,
                            [&dispatch](const auto& keep) { return dispatch.client_software(keep); },
                            schema_registry.decoder(), ctx.telemetry, faults.registry.get(), segments_of(*logs),
                            &security, purge_of(txns), tenant_purge.hooks(), cluster.console_peers()});
    console_pages.set(console);
    write_listeners_file(opt.data_dir, endpoints, kafka.self_signed_cert,
                         {metrics.address, schema_registry.url, console.url});
    announce(opt, ms_since(started), endpoints, ctx.config, server.reactor_count(), kafka.self_signed_cert);

    spdlog::info("signal {}: shutting down", wait_for_signal());
    stop_coordinators(groups, shares, txns);
    stop_each(metrics, schema_registry, console);
    server.stop();
    partitions.waiters().clear();  // parked fetches hold timers of the (stopped) reactors
    pools.join();                  // no append runs while the logs close
    stop_storage(log_tasks, storage, *logs);
    spdlog::info("stopped");
    return 0;
}

}  // namespace ketch::app
