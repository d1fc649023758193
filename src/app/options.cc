#include "app/options.h"

#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <toml++/toml.h>

namespace ketch::app {

std::pair<std::string, uint16_t> split_host_port(const std::string& s) {
    auto colon = s.rfind(':');
    if (colon == std::string::npos) throw std::invalid_argument("expected host:port, got '" + s + "'");
    std::string host = s.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    int port = std::stoi(s.substr(colon + 1));
    if (port < 0 || port > 65535) throw std::invalid_argument("port out of range in '" + s + "'");
    return {host, uint16_t(port)};
}

// Values from the config file become the defaults the flags override.
static void apply_config_file(const std::string& path, options& o) {
    toml::table t = toml::parse_file(path);
    o.listen = t["listen"].value_or(o.listen);
    o.advertised_listener = t["advertised-listener"].value_or(o.advertised_listener);
    o.data_dir = t["data-dir"].value_or(o.data_dir);
    o.reactors = t["reactors"].value_or(o.reactors);
    o.auto_create_topics = t["auto-create-topics"].value_or(o.auto_create_topics);
    o.default_partitions = t["default-partitions"].value_or(o.default_partitions);
    o.log_level = t["log-level"].value_or(o.log_level);
    o.flush_ms = t["flush-ms"].value_or(o.flush_ms);
    o.node_id = t["node-id"].value_or(o.node_id);
    o.retention_check_ms = t["retention-check-ms"].value_or(o.retention_check_ms);
    o.log_cleaner_backoff_ms = t["log-cleaner-backoff-ms"].value_or(o.log_cleaner_backoff_ms);
    o.log_cleaner_io_max_bytes_per_second =
        t["log-cleaner-io-max-bytes-per-second"].value_or(o.log_cleaner_io_max_bytes_per_second);
    o.max_request_bytes = t["max-request-bytes"].value_or(o.max_request_bytes);
    o.group_initial_rebalance_delay_ms =
        t["group-initial-rebalance-delay-ms"].value_or(o.group_initial_rebalance_delay_ms);
}

options parse_options(int argc, char** argv) {
    options o;
    // The config file is found first (a flag or ./ketch.toml), so flags win over it.
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--config") o.config_file = argv[i + 1];
    if (o.config_file.empty() && std::filesystem::exists("ketch.toml")) o.config_file = "ketch.toml";
    if (!o.config_file.empty()) {
        try {
            apply_config_file(o.config_file, o);
        } catch (const std::exception& e) {
            std::cerr << "ketch: cannot read " << o.config_file << ": " << e.what() << "\n";
            std::exit(2);
        }
    }

    CLI::App app{"ketch: a Kafka-compatible broker"};
    app.set_version_flag("--version", "ketch 0.1.0 (Kafka protocol of Apache Kafka 4.3.1)");
    auto add_common = [&](CLI::App* a) {
        a->add_option("--config", o.config_file, "ketch.toml to read (default ./ketch.toml if present)");
        a->add_option("--listen", o.listen, "host:port to listen on (port 0: any free port)")->capture_default_str();
        a->add_option("--advertised-listener", o.advertised_listener,
                      "host:port clients are told to connect to (default: the listen address)");
        a->add_option("--data-dir", o.data_dir, "where topics, logs and metadata live")->capture_default_str();
        a->add_option("--reactors", o.reactors, "network threads (0: one per core)")->capture_default_str();
        a->add_option("--auto-create-topics", o.auto_create_topics,
                      "create unknown topics on Metadata/Produce (auto.create.topics.enable)")
            ->capture_default_str();
        a->add_option("--default-partitions", o.default_partitions, "partitions of a new topic (num.partitions)")
            ->capture_default_str();
        a->add_option("--log-level", o.log_level, "trace, debug, info, warn, error")->capture_default_str();
        a->add_option("--ready-file", o.ready_file, "file written with host:port once the broker listens");
        a->add_option("--flush-ms", o.flush_ms, "fsync acks=0/1 data at least this often")->capture_default_str();
        a->add_option("--node-id", o.node_id, "this broker's node id")->capture_default_str();
        a->add_option("--retention-check-ms", o.retention_check_ms,
                      "how often retention runs (log.retention.check.interval.ms)")
            ->capture_default_str();
        a->add_option("--log-cleaner-backoff-ms", o.log_cleaner_backoff_ms,
                      "how often the log cleaner looks for compacted logs to clean (log.cleaner.backoff.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        a->add_option("--log-cleaner-io-max-bytes-per-second", o.log_cleaner_io_max_bytes_per_second,
                      "the log cleaner's read+write rate limit (log.cleaner.io.max.bytes.per.second); 0: none")
            ->capture_default_str()
            ->check(CLI::NonNegativeNumber);
        a->add_option("--max-request-bytes", o.max_request_bytes, "largest request frame (socket.request.max.bytes)")
            ->capture_default_str();
        a->add_option("--group-initial-rebalance-delay-ms", o.group_initial_rebalance_delay_ms,
                      "how long a new group waits for more members (group.initial.rebalance.delay.ms; Kafka: 3000)")
            ->capture_default_str()
            ->check(CLI::NonNegativeNumber);
    };
    add_common(&app);
    auto* env = app.add_subcommand("env", "print the client settings for this broker and exit");
    add_common(env);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        std::exit(app.exit(e));
    }
    o.env_only = env->parsed();
    return o;
}

}  // namespace ketch::app
