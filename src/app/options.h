// ketch's settings: command-line flags, optionally a ketch.toml, defaults
// suited to a developer's machine.
#pragma once

#include <cstdint>
#include <string>

namespace ketch::app {

struct options {
    std::string listen = "127.0.0.1:9092";  // host:port; port 0 picks a free one
    std::string advertised_listener;         // host:port clients are told; default: the bound address
    std::string data_dir = "./data";
    int reactors = 0;                        // 0: one per core
    bool auto_create_topics = true;
    int32_t default_partitions = 1;
    std::string log_level = "info";
    std::string ready_file;                  // written with host:port once listening
    int64_t flush_ms = 1000;                 // acks=0/1 data is fsynced at least this often
    int32_t node_id = 1;
    int64_t retention_check_ms = 300000;     // log.retention.check.interval.ms
    int64_t log_cleaner_backoff_ms = 15000;  // log.cleaner.backoff.ms
    double log_cleaner_io_max_bytes_per_second = 0;  // log.cleaner.io.max.bytes.per.second; 0: no limit
    int32_t max_request_bytes = 100 * 1024 * 1024;
    // group.initial.rebalance.delay.ms (Kafka's default is 3000)
    int32_t group_initial_rebalance_delay_ms = 200;
    std::string config_file;                 // ketch.toml
    bool env_only = false;                   // `ketch env`
};

// Parses argv (and the config file it names, or ./ketch.toml). Exits the
// process with usage on bad flags.
options parse_options(int argc, char** argv);

// "host", port from "host:port".
std::pair<std::string, uint16_t> split_host_port(const std::string& s);

}  // namespace ketch::app
