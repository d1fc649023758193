// ketch: a Kafka-compatible broker. Wires the layers together (the only place
// that knows concrete types), starts the listener, waits for SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <optional>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/broker_properties.h"
#include "app/data_dir_lock.h"
#include "app/cluster_id.h"
#include "app/listeners.h"
#include "app/metrics_page.h"
#include "app/options.h"
#include "app/periodic.h"
#include "app/registry_topic_view.h"
#include "broker/broker_context.h"
#include "broker/cleaner.h"
#include "broker/dispatcher.h"
#include "broker/partition_waiters.h"
#include "broker/partitions.h"
#include "broker/resource_configs.h"
#include "broker/retention.h"
#include "broker/topics.h"
#include "broker/txn_markers.h"
#include "group/coordinator.h"
#include "group/thread_scheduler.h"
#include "http/server.h"
#include "io/posix_file_system.h"
#include "log/log_manager.h"
#include "meta/resource_config_registry.h"
#include "meta/sqlite_acl_store.h"
#include "meta/sqlite_credential_store.h"
#include "meta/sqlite_offset_store.h"
#include "meta/sqlite_quota_store.h"
#include "meta/sqlite_store.h"
#include "meta/sqlite_txn_store.h"
#include "meta/topic_registry.h"
#include "net/server.h"
#include "security/authorizer.h"
#include "security/ip_connection_rate.h"
#include "security/quota_config.h"
#include "security/quota_manager.h"
#include "security/scram.h"
#include "security/tls_identity.h"
#include "txn/coordinator.h"
#include "txn/producer_ids.h"

using namespace ketch;

namespace {

void print_env(const std::string& bootstrap) { std::cout << "KAFKA_BOOTSTRAP_SERVERS=" << bootstrap << "\n"; }

void write_ready_file(const std::string& path, const std::string& addr) {
    std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << addr << "\n";
    }
    std::filesystem::rename(tmp, path);
}

// The advertised host of a listener bound to `host` (a wildcard becomes loopback).
std::string default_advertised_host(const std::string& host) {
    return host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host;
}

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        auto comma = s.find(',', start);
        auto item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) out.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

// ketch.toml [[users]]: each gets SCRAM-SHA-256 and SCRAM-SHA-512 credentials
// (salted, 4096 iterations) unless the stored ones already match the password.
void provision_users(const std::map<std::string, std::string>& users, meta::credential_store& creds) {
    for (auto& [name, password] : users) {
        for (const char* mech : {"SCRAM-SHA-256", "SCRAM-SHA-512"}) {
            auto have = creds.find(name, mech);
            if (have && security::scram_password_matches(*have, password)) continue;
            auto st = creds.upsert(security::make_scram_credential(name, mech, password, 4096));
            if (!st.ok()) throw std::runtime_error("credentials: " + st.error().message);
        }
    }
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

}  // namespace

int main(int argc, char** argv) {
    auto t0 = std::chrono::steady_clock::now();
    app::options opt = app::parse_options(argc, argv);
    app::resolved_listeners lis;
    try {
        lis = app::resolve_listeners(opt);
    } catch (const std::exception& e) {
        std::cerr << "ketch: " << e.what() << "\n";
        return 2;
    }
    const auto& first = lis.listeners.front();
    if (opt.env_only) {
        auto adv = lis.advertised.count(first.name) ? lis.advertised[first.name]
                                                    : std::pair<std::string, int>{default_advertised_host(first.host),
                                                                                  first.port};
        print_env(adv.first + ":" + std::to_string(adv.second));
        return 0;
    }
    spdlog::set_level(spdlog::level::from_str(opt.log_level));
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");

    // Signals are taken by sigwait on the main thread; block them everywhere.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    try {
        std::filesystem::create_directories(opt.data_dir);
        app::data_dir_lock dir_lock(opt.data_dir);  // before anything in it is opened
        // The SQLite stores are independent files and creating one costs about eight
        // fdatasyncs: they open concurrently (the file system commits the syncs together),
        // so start-up pays about one store's syncs instead of six (docs/performance.md).
        auto open_async = [&opt](auto open) {
            return std::async(std::launch::async, open, std::filesystem::path(opt.data_dir));
        };
        auto offsets_f = open_async(&meta::sqlite_offset_store::open);
        auto creds_f = open_async(&meta::sqlite_credential_store::open);
        auto acl_f = open_async(&meta::sqlite_acl_store::open);
        auto quota_f = open_async(&meta::sqlite_quota_store::open);
        auto txn_f = open_async(&meta::sqlite_txn_store::open);
        auto store = meta::sqlite_store::open(opt.data_dir);
        if (!store.ok()) throw std::runtime_error("metadata store: " + store.error().message);
        auto topics = meta::topic_registry::open(**store, meta::broker_defaults{}, {}, std::to_string(opt.node_id));
        if (!topics.ok()) throw std::runtime_error("topics: " + topics.error().message);

        log::log_manager::options lopt;
        lopt.fs = std::make_shared<io::posix_file_system>();
        lopt.data_dir = (std::filesystem::path(opt.data_dir) / "logs").string();
        lopt.default_config.flush_interval_ms = opt.flush_ms;
        auto logs = log::log_manager::open(std::move(lopt));
        if (!logs.ok()) throw std::runtime_error("logs: " + logs.error().message);

        broker::partition_waiters waiters;
        // A marker may move a partition's LSO: wake read_committed long polls.
        (*logs)->set_marker_listener([&waiters](const log::topic_partition& tp) { waiters.notify(tp.topic, tp.partition); });
        txn::producer_ids producer_ids(opt.data_dir);

        // The group coordinator: committed offsets in <data-dir>/offsets.db,
        // timers on a thread of their own, commits' fsyncs on `blocking`.
        auto offsets = offsets_f.get();
        if (!offsets.ok()) throw std::runtime_error("offsets: " + offsets.error().message);
        group::system_clock group_clock;
        group::thread_scheduler group_timers;
        group::group_config gcfg;
        gcfg.initial_rebalance_delay_ms = opt.group_initial_rebalance_delay_ms;
        gcfg.min_session_timeout_ms = opt.group_min_session_timeout_ms;
        gcfg.max_session_timeout_ms = opt.group_max_session_timeout_ms;
        gcfg.consumer_session_timeout_ms = opt.group_consumer_session_timeout_ms;
        gcfg.consumer_heartbeat_interval_ms = opt.group_consumer_heartbeat_interval_ms;
        gcfg.consumer_assignment_interval_ms = opt.group_consumer_assignment_interval_ms;
        gcfg.consumer_migration_policy = group::parse_migration_policy(opt.group_consumer_migration_policy);
        // Per-group config overrides (meta.db): the coordinator starts with them
        // (its restored members' session timers use them) and gets every change.
        auto group_configs = meta::resource_config_registry::open(**store, meta::config_resource::group);
        if (!group_configs.ok()) throw std::runtime_error("group configs: " + group_configs.error().message);
        for (const auto& [group, overrides] : (*group_configs)->all())
            gcfg.consumer_overrides[group] = broker::consumer_overrides_of(overrides);
        app::registry_topic_view group_topics(**topics);
        auto groups = group::group_coordinator::open(gcfg, group_clock, group_timers, **offsets);
        if (!groups.ok()) throw std::runtime_error("groups: " + groups.error().message);
        (*groups)->set_topic_view(&group_topics);
        (*group_configs)->set_listener([&groups](const std::string& group, const meta::config_map& overrides) {
            (*groups)->set_consumer_overrides(group, broker::consumer_overrides_of(overrides));
        });
        boost::asio::thread_pool blocking(2);

        broker::broker_context ctx{{}, **topics, **logs, waiters, producer_ids, **groups, {}};
        ctx.group_configs = group_configs->get();
        // Client metrics subscriptions (meta.db): kept and described; ketch sends no telemetry.
        auto client_metrics = meta::resource_config_registry::open(**store, meta::config_resource::client_metrics);
        if (!client_metrics.ok()) throw std::runtime_error("client metrics: " + client_metrics.error().message);
        ctx.client_metrics_configs = client_metrics->get();
        ctx.run_blocking = [&blocking](std::function<void()> fn) { boost::asio::post(blocking, std::move(fn)); };
        ctx.config.node_id = opt.node_id;
        ctx.config.cluster_id = app::load_or_create_cluster_id(opt.data_dir);
        ctx.config.auto_create_topics = opt.auto_create_topics;
        ctx.config.default_partitions = opt.default_partitions;
        ctx.config.max_request_bytes = opt.max_request_bytes;
        ctx.config.flush_ms = opt.flush_ms;
        broker::apply_topic_configs(ctx);  // the logs were opened with the default config
        ctx.config.producer_id_expiration_ms = opt.producer_id_expiration_ms;

        // SCRAM credentials: <data-dir>/credentials.db, plus the users of ketch.toml.
        auto creds = creds_f.get();
        if (!creds.ok()) throw std::runtime_error("credentials: " + creds.error().message);
        provision_users(opt.users, **creds);
        ctx.credentials = creds->get();
        // Listed in Kafka's order (a hash map's there), whatever the flag's order.
        auto wanted = split_list(opt.sasl_mechanisms);
        for (auto& m : wanted) {
            auto& all = security::supported_mechanisms();
            if (std::find(all.begin(), all.end(), m) == all.end())
                throw std::runtime_error("--sasl-mechanisms: unsupported mechanism " + m);
        }
        ctx.sasl.enabled_mechanisms.clear();
        for (auto& m : security::supported_mechanisms())
            if (std::find(wanted.begin(), wanted.end(), m) != wanted.end()) ctx.sasl.enabled_mechanisms.push_back(m);
        ctx.sasl.reauth_ms = opt.connections_max_reauth_ms;
        // ACLs: <data-dir>/acls.db; the authorizer only with --authorizer.
        auto acl_db = acl_f.get();
        if (!acl_db.ok()) throw std::runtime_error("acls: " + acl_db.error().message);
        std::optional<security::authorizer> acl_authorizer;
        for (auto& u : security::parse_super_users(opt.super_users))
            if (u.find(':') == std::string::npos)  // SecurityUtils.parseKafkaPrincipal
                throw std::runtime_error("--super-users: expected a string in format principalType:principalName but got " + u);
        if (opt.authorizer) {
            acl_authorizer.emplace(security::authorizer_config{true, security::parse_super_users(opt.super_users),
                                                               opt.allow_everyone_if_no_acl_found},
                                   **acl_db);
            ctx.authorizer = &*acl_authorizer;
            spdlog::info("authorizer on: {} ACL(s), super users [{}], allow.everyone.if.no.acl.found={}",
                         acl_authorizer->acls({}).size(), opt.super_users, opt.allow_everyone_if_no_acl_found);
        }
        // Client quotas: <data-dir>/quotas.db, enforced per (user, client-id).
        auto quota_db = quota_f.get();
        if (!quota_db.ok()) throw std::runtime_error("quotas: " + quota_db.error().message);
        security::quota_config quota_settings(**quota_db);
        if (auto st = quota_settings.load(); !st.ok()) throw std::runtime_error("quotas: " + st.error().message);
        security::quota_manager quotas(quota_settings,
                                       {opt.quota_window_num, int64_t(opt.quota_window_size_seconds) * 1000});
        ctx.quota_settings = &quota_settings;
        ctx.quotas = &quotas;
        // The transaction coordinator: state in <data-dir>/txn.db (with the
        // groups' pending transactional offsets), markers and completions on
        // `blocking`, timeouts and expiry on the group timer thread.
        auto txn_db = txn_f.get();
        if (!txn_db.ok()) throw std::runtime_error("transactions: " + txn_db.error().message);
        if (auto st = (*groups)->attach_txn_store(**txn_db); !st.ok())
            throw std::runtime_error("transactional offsets: " + st.error().message);
        broker::txn_markers markers(ctx);
        txn::txn_config tcfg;
        tcfg.max_timeout_ms = opt.transaction_max_timeout_ms;
        tcfg.abort_timed_out_interval_ms = opt.transaction_abort_check_ms;
        tcfg.transactional_id_expiration_ms = opt.transactional_id_expiration_ms;
        txn::transaction_coordinator txns(
            tcfg, [&group_clock] { return group_clock.now_ms(); }, [&producer_ids] { return producer_ids.next(); },
            **txn_db, markers, ctx.run_blocking, [&blocking](int64_t delay_ms, std::function<void()> job) {
                // A retry waits on a timer, not on a pool thread.
                auto t = std::make_shared<boost::asio::steady_timer>(blocking, std::chrono::milliseconds(delay_ms));
                t->async_wait([t, job = std::move(job)](const boost::system::error_code&) { job(); });
            });
        if (auto st = txns.load(); !st.ok()) throw std::runtime_error("transactions: " + st.error().message);
        ctx.txns = &txns;
        app::periodic txn_abort(group_timers, tcfg.abort_timed_out_interval_ms, [&ctx, &txns] {
            ctx.run_blocking([&txns] { txns.abort_timed_out(); });
        });
        app::periodic txn_expire(group_timers, tcfg.remove_expired_interval_ms,
                                 [&ctx, &txns] {
                                     ctx.run_blocking([&txns] { txns.expire_transactional_ids(); });
                                 });

        broker::dispatcher dispatch(ctx);
        net::server_options sopt;
        sopt.listeners = lis.listeners;
        sopt.reactors = opt.reactors;
        sopt.max_request_bytes = opt.max_request_bytes;
        sopt.send_buffer_bytes = opt.socket_send_buffer_bytes;
        sopt.receive_buffer_bytes = opt.socket_receive_buffer_bytes;
        sopt.idle_timeout_ms = opt.connections_max_idle_ms;
        sopt.auth_timeout_ms = opt.auth_timeout_ms;
        sopt.failed_auth_delay_ms = opt.failed_auth_delay_ms;
        sopt.limits.max_connections = opt.max_connections;
        sopt.limits.max_connections_per_ip = opt.max_connections_per_ip;
        sopt.limits.per_ip_overrides = app::parse_ip_overrides(opt.max_connections_per_ip_overrides);
        sopt.limits.max_connection_creation_rate = opt.max_connection_creation_rate;
        bool any_tls = false;
        for (auto& l : lis.listeners) any_tls |= net::uses_tls(l.protocol);
        std::string self_signed;
        if (any_tls) {
            if (opt.tls_cert.empty() != opt.tls_key.empty())
                throw std::runtime_error("--tls-cert and --tls-key go together");
            if (opt.tls_cert.empty()) {
                auto files = security::ensure_self_signed(std::filesystem::path(opt.data_dir) / "tls");
                sopt.tls.cert_file = files.cert.string();
                sopt.tls.key_file = files.key.string();
                self_signed = sopt.tls.cert_file;
            } else {
                sopt.tls.cert_file = opt.tls_cert;
                sopt.tls.key_file = opt.tls_key;
            }
            sopt.tls.client_ca_file = opt.tls_client_ca;
            sopt.tls.client_auth = !opt.tls_client_auth.empty() ? opt.tls_client_auth
                                   : opt.tls_client_ca.empty()   ? "none"
                                                                 : "required";
        }
        // The ip connection_creation_rate quotas, measured like the client
        // quotas (declared before the server, which calls it until stopped).
        security::ip_connection_rate ip_rates(quota_settings,
                                              {opt.quota_window_num, int64_t(opt.quota_window_size_seconds) * 1000});
        net::server server(sopt, dispatch);
        server.set_ip_rate_check([&ip_rates](const std::string& ip) {
            auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now().time_since_epoch());
            return ip_rates.record_connection(ip, now.count());
        });
        auto bound_ports = server.listen();
        uint16_t bound = bound_ports.front();
        std::string host = first.host;
        std::vector<app::listener_endpoint> endpoints;
        for (size_t i = 0; i < lis.listeners.size(); ++i) {
            auto& l = lis.listeners[i];
            broker::broker_config::endpoint ep{default_advertised_host(l.host), bound_ports[i]};
            if (auto it = lis.advertised.find(l.name); it != lis.advertised.end())
                ep = {it->second.first, it->second.second};
            ctx.config.advertised[l.name] = ep;
            endpoints.push_back({l.name, std::string(net::to_string(l.protocol)), l.host, bound_ports[i], ep.host,
                                 ep.port});
        }
        auto first_ep = ctx.config.advertised[first.name];
        std::string advertised_host = first_ep.host;
        int advertised_port = first_ep.port;
        ctx.config.advertised_host = advertised_host;
        ctx.config.advertised_port = advertised_port;
        ctx.config.static_properties = app::static_broker_properties(opt, endpoints);
        server.start();
        auto retention = std::make_unique<broker::retention_task>(ctx, opt.retention_check_ms);
        auto cleaner = std::make_unique<broker::cleaner_task>(ctx, opt.log_cleaner_backoff_ms,
                                                              opt.log_cleaner_io_max_bytes_per_second);

        std::unique_ptr<http::server> web;
        std::string metrics_addr;
        if (!opt.metrics_listen.empty()) {
            auto [mhost, mport] = app::split_host_port(opt.metrics_listen);
            web = std::make_unique<http::server>();
            web->add_route("/metrics", [&server, &dispatch, &quotas] {
                return http::response{200, "text/plain; version=0.0.4; charset=utf-8",
                                      app::render_metrics(server.stats(), dispatch.metrics(), &quotas)};
            });
            metrics_addr = mhost + ":" + std::to_string(web->listen(mhost, mport));
            web->start();
        }

        std::string addr = host + ":" + std::to_string(bound);
        // <data-dir>/listeners.json: every listener's bound address, for tools and tests.
        {
            nlohmann::json j = nlohmann::json::object();
            for (size_t i = 0; i < lis.listeners.size(); ++i) {
                auto& l = lis.listeners[i];
                j["listeners"][l.name] = {{"protocol", std::string(net::to_string(l.protocol))},
                                          {"address", l.host + ":" + std::to_string(bound_ports[i])}};
            }
            if (!self_signed.empty()) j["tls_ca_file"] = self_signed;
            if (!metrics_addr.empty()) j["metrics"] = "http://" + metrics_addr + "/metrics";
            auto path = std::filesystem::path(opt.data_dir) / "listeners.json";
            write_ready_file(path.string(), j.dump());
        }
        if (!opt.ready_file.empty()) write_ready_file(opt.ready_file, addr);
        auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        spdlog::info("ketch ready in {:.1f} ms: listening on {} (data in {}, {} reactors)", ms, addr, opt.data_dir,
                     server.reactor_count());
        for (size_t i = 0; i < lis.listeners.size(); ++i) {
            auto& l = lis.listeners[i];
            auto ep = ctx.config.advertised[l.name];
            spdlog::info("listener {} ({}) on {}:{}, advertised as {}:{}", l.name, net::to_string(l.protocol), l.host,
                         bound_ports[i], ep.host, ep.port);
        }
        if (!self_signed.empty())
            spdlog::info("TLS: self-signed certificate for localhost in {} (clients: ssl.ca.location={})",
                         self_signed, self_signed);
        spdlog::info("connect with: bootstrap.servers={}:{}   (e.g. kcat -b {}:{} -L)", advertised_host,
                     advertised_port, advertised_host, advertised_port);

        int sig = wait_for_signal();
        spdlog::info("signal {}: shutting down", sig);
        // Parked JoinGroup/SyncGroup requests are answered NOT_COORDINATOR
        // while the listener still runs; later group requests
        // COORDINATOR_NOT_AVAILABLE.
        (*groups)->shutdown();
        txns.shutdown();
        txn_abort.stop();
        txn_expire.stop();
        if (web) web->stop();
        server.stop();
        waiters.clear();  // parked fetches hold timers of the (stopped) reactors
        blocking.join();
        cleaner.reset();
        retention.reset();
        auto st = (*logs)->close();
        if (!st.ok()) spdlog::error("closing logs: {}", st.error().message);
        spdlog::info("stopped");
        return 0;
    } catch (const std::exception& e) {
        spdlog::critical("ketch: {}", e.what());
        return 1;
    }
}
