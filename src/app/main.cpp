// ketch: a Kafka-compatible broker. Wires the layers together (the only place
// that knows concrete types), starts the listener, waits for SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <spdlog/spdlog.h>

#include "app/cluster_id.h"
#include "app/options.h"
#include "app/registry_topic_view.h"
#include "broker/broker_context.h"
#include "broker/cleaner.h"
#include "broker/dispatcher.h"
#include "broker/partition_waiters.h"
#include "broker/partitions.h"
#include "broker/retention.h"
#include "group/coordinator.h"
#include "group/thread_scheduler.h"
#include "io/posix_file_system.h"
#include "log/log_manager.h"
#include "meta/sqlite_offset_store.h"
#include "meta/sqlite_store.h"
#include "meta/topic_registry.h"
#include "net/server.h"
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
    auto [host, port] = app::split_host_port(opt.listen);
    std::string advertised_host = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host;
    int advertised_port = port;
    if (!opt.advertised_listener.empty()) std::tie(advertised_host, advertised_port) = app::split_host_port(opt.advertised_listener);

    if (opt.env_only) {
        print_env(advertised_host + ":" + std::to_string(advertised_port));
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
        auto store = meta::sqlite_store::open(opt.data_dir);
        if (!store.ok()) throw std::runtime_error("metadata store: " + store.error().message);
        auto topics = meta::topic_registry::open(**store, meta::broker_defaults{});
        if (!topics.ok()) throw std::runtime_error("topics: " + topics.error().message);

        log::log_manager::options lopt;
        lopt.fs = std::make_shared<io::posix_file_system>();
        lopt.data_dir = (std::filesystem::path(opt.data_dir) / "logs").string();
        lopt.default_config.flush_interval_ms = opt.flush_ms;
        auto logs = log::log_manager::open(std::move(lopt));
        if (!logs.ok()) throw std::runtime_error("logs: " + logs.error().message);

        broker::partition_waiters waiters;
        txn::producer_ids producer_ids(opt.data_dir);

        // The group coordinator: committed offsets in <data-dir>/offsets.db,
        // timers on a thread of their own, commits' fsyncs on `blocking`.
        auto offsets = meta::sqlite_offset_store::open(opt.data_dir);
        if (!offsets.ok()) throw std::runtime_error("offsets: " + offsets.error().message);
        group::system_clock group_clock;
        group::thread_scheduler group_timers;
        group::group_config gcfg;
        gcfg.initial_rebalance_delay_ms = opt.group_initial_rebalance_delay_ms;
        app::registry_topic_view group_topics(**topics);
        auto groups = group::group_coordinator::open(gcfg, group_clock, group_timers, **offsets);
        if (!groups.ok()) throw std::runtime_error("groups: " + groups.error().message);
        (*groups)->set_topic_view(&group_topics);
        boost::asio::thread_pool blocking(2);

        broker::broker_context ctx{{}, **topics, **logs, waiters, producer_ids, **groups, {}};
        ctx.run_blocking = [&blocking](std::function<void()> fn) { boost::asio::post(blocking, std::move(fn)); };
        ctx.config.node_id = opt.node_id;
        ctx.config.cluster_id = app::load_or_create_cluster_id(opt.data_dir);
        ctx.config.auto_create_topics = opt.auto_create_topics;
        ctx.config.default_partitions = opt.default_partitions;
        ctx.config.max_request_bytes = opt.max_request_bytes;
        ctx.config.flush_ms = opt.flush_ms;
        broker::apply_topic_configs(ctx);  // the logs were opened with the default config

        broker::dispatcher dispatch(ctx);
        net::server_options sopt;
        sopt.host = host;
        sopt.port = port;
        sopt.reactors = opt.reactors;
        sopt.max_request_bytes = opt.max_request_bytes;
        net::server server(sopt, dispatch);
        uint16_t bound = server.listen();
        if (opt.advertised_listener.empty()) advertised_port = bound;
        ctx.config.advertised_host = advertised_host;
        ctx.config.advertised_port = advertised_port;
        server.start();
        auto retention = std::make_unique<broker::retention_task>(ctx, opt.retention_check_ms);
        auto cleaner = std::make_unique<broker::cleaner_task>(ctx, opt.log_cleaner_backoff_ms,
                                                              opt.log_cleaner_io_max_bytes_per_second);

        std::string addr = host + ":" + std::to_string(bound);
        if (!opt.ready_file.empty()) write_ready_file(opt.ready_file, addr);
        auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        spdlog::info("ketch ready in {:.1f} ms: listening on {} (data in {}, {} reactors)", ms, addr, opt.data_dir,
                     server.reactor_count());
        spdlog::info("connect with: bootstrap.servers={}:{}   (e.g. kcat -b {}:{} -L)", advertised_host,
                     advertised_port, advertised_host, advertised_port);

        int sig = wait_for_signal();
        spdlog::info("signal {}: shutting down", sig);
        // Parked JoinGroup/SyncGroup requests are answered NOT_COORDINATOR
        // while the listener still runs; later group requests
        // COORDINATOR_NOT_AVAILABLE.
        (*groups)->shutdown();
        server.stop();
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
