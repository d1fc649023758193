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
    auto strings = [&](const char* key, std::vector<std::string>& out) {
        if (auto v = t[key].value<std::string>()) out = {*v};
        if (auto* arr = t[key].as_array()) {
            out.clear();
            for (auto& e : *arr)
                if (auto sv = e.value<std::string>()) out.push_back(*sv);
        }
    };
    strings("advertised-listener", o.advertised_listeners);
    strings("listener", o.listeners);
    o.tls_cert = t["tls-cert"].value_or(o.tls_cert);
    o.tls_key = t["tls-key"].value_or(o.tls_key);
    o.tls_client_ca = t["tls-client-ca"].value_or(o.tls_client_ca);
    o.tls_client_auth = t["tls-client-auth"].value_or(o.tls_client_auth);
    o.sasl_mechanisms = t["sasl-mechanisms"].value_or(o.sasl_mechanisms);
    o.connections_max_reauth_ms = t["connections-max-reauth-ms"].value_or(o.connections_max_reauth_ms);
    o.auth_timeout_ms = t["auth-timeout-ms"].value_or(o.auth_timeout_ms);
    o.failed_auth_delay_ms = t["failed-auth-delay-ms"].value_or(o.failed_auth_delay_ms);
    o.authorizer = t["authorizer"].value_or(o.authorizer);
    o.super_users = t["super-users"].value_or(o.super_users);
    o.allow_everyone_if_no_acl_found =
        t["allow-everyone-if-no-acl-found"].value_or(o.allow_everyone_if_no_acl_found);
    o.max_connections = t["max-connections"].value_or(o.max_connections);
    o.max_connections_per_ip = t["max-connections-per-ip"].value_or(o.max_connections_per_ip);
    o.max_connections_per_ip_overrides =
        t["max-connections-per-ip-overrides"].value_or(o.max_connections_per_ip_overrides);
    o.max_connection_creation_rate = t["max-connection-creation-rate"].value_or(o.max_connection_creation_rate);
    o.connections_max_idle_ms = t["connections-max-idle-ms"].value_or(o.connections_max_idle_ms);
    o.quota_window_num = t["quota-window-num"].value_or(o.quota_window_num);
    o.quota_window_size_seconds = t["quota-window-size-seconds"].value_or(o.quota_window_size_seconds);
    if (auto* users = t["users"].as_array()) {
        for (auto& u : *users) {
            auto* ut = u.as_table();
            if (!ut) throw std::invalid_argument("[[users]] entries must be tables");
            auto name = (*ut)["name"].value<std::string>();
            auto password = (*ut)["password"].value<std::string>();
            if (!name || !password || name->empty() || password->empty())
                throw std::invalid_argument("every [[users]] entry needs a non-empty name and password");
            o.users[*name] = *password;
        }
    }
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
    o.producer_id_expiration_ms = t["producer-id-expiration-ms"].value_or(o.producer_id_expiration_ms);
    o.max_request_bytes = t["max-request-bytes"].value_or(o.max_request_bytes);
    o.group_initial_rebalance_delay_ms =
        t["group-initial-rebalance-delay-ms"].value_or(o.group_initial_rebalance_delay_ms);
    o.group_min_session_timeout_ms = t["group-min-session-timeout-ms"].value_or(o.group_min_session_timeout_ms);
    o.group_max_session_timeout_ms = t["group-max-session-timeout-ms"].value_or(o.group_max_session_timeout_ms);
    o.group_consumer_session_timeout_ms =
        t["group-consumer-session-timeout-ms"].value_or(o.group_consumer_session_timeout_ms);
    o.group_consumer_heartbeat_interval_ms =
        t["group-consumer-heartbeat-interval-ms"].value_or(o.group_consumer_heartbeat_interval_ms);
    o.transaction_max_timeout_ms = t["transaction-max-timeout-ms"].value_or(o.transaction_max_timeout_ms);
    o.transaction_abort_check_ms = t["transaction-abort-check-ms"].value_or(o.transaction_abort_check_ms);
    o.transactional_id_expiration_ms =
        t["transactional-id-expiration-ms"].value_or(o.transactional_id_expiration_ms);
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
        a->add_option("--advertised-listener", o.advertised_listeners,
                      "host:port clients are told to connect to (default: the listen address), or NAME=host:port "
                      "for the listener NAME; repeatable");
        a->add_option("--listener", o.listeners,
                      "NAME=PROTO://host:port, PROTO one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; repeatable");
        a->add_option("--tls-cert", o.tls_cert, "PEM certificate (chain) of SSL/SASL_SSL listeners");
        a->add_option("--tls-key", o.tls_key, "PEM private key of --tls-cert");
        a->add_option("--tls-client-ca", o.tls_client_ca, "PEM CA certificates that sign client certificates (mTLS)");
        a->add_option("--tls-client-auth", o.tls_client_auth,
                      "ssl.client.auth: none, requested, required (default: required with --tls-client-ca)")
            ->check(CLI::IsMember({"none", "requested", "required"}));
        a->add_option("--sasl-mechanisms", o.sasl_mechanisms, "SASL mechanisms enabled on SASL listeners")
            ->capture_default_str();
        a->add_option("--connections-max-reauth-ms", o.connections_max_reauth_ms,
                      "SASL session lifetime (KIP-368; 0: sessions never expire)")
            ->capture_default_str();
        a->add_option("--auth-timeout-ms", o.auth_timeout_ms,
                      "close connections not authenticated (TLS handshake, SASL) within this")
            ->capture_default_str();
        a->add_option("--failed-auth-delay-ms", o.failed_auth_delay_ms,
                      "delay before answering a failed login (connection.failed.authentication.delay.ms)")
            ->capture_default_str();
        a->add_flag("--authorizer", o.authorizer,
                    "authorize every request against the ACLs (Kafka's StandardAuthorizer); "
                    "off: everything is allowed and the ACL APIs answer SECURITY_DISABLED");
        a->add_option("--super-users", o.super_users, "super.users: principals allowed everything, \"User:a;User:b\"");
        a->add_flag("--allow-everyone-if-no-acl-found", o.allow_everyone_if_no_acl_found,
                    "allow.everyone.if.no.acl.found: a resource without any ACL is open to everyone");
        a->add_option("--max-connections", o.max_connections, "max.connections (the acceptor waits when reached)");
        a->add_option("--max-connections-per-ip", o.max_connections_per_ip,
                      "max.connections.per.ip (new connections over it are closed)");
        a->add_option("--max-connections-per-ip-overrides", o.max_connections_per_ip_overrides,
                      "max.connections.per.ip.overrides: ip:n,ip:n");
        a->add_option("--max-connection-creation-rate", o.max_connection_creation_rate,
                      "max.connection.creation.rate: new connections per second (accepting is delayed)");
        a->add_option("--quota-window-num", o.quota_window_num,
                      "quota.window.num: client quota rates are measured over this many windows")
            ->check(CLI::Range(1, 1000))
            ->capture_default_str();
        a->add_option("--quota-window-size-seconds", o.quota_window_size_seconds,
                      "quota.window.size.seconds: the length of one quota window")
            ->check(CLI::Range(1, 3600))
            ->capture_default_str();
        a->add_option("--connections-max-idle-ms", o.connections_max_idle_ms,
                      "close connections idle this long (connections.max.idle.ms)")
            ->capture_default_str();
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
        a->add_option("--producer-id-expiration-ms", o.producer_id_expiration_ms,
                      "forget an idle producer's sequence state after this long (producer.id.expiration.ms; "
                      "checked with retention)")
            ->capture_default_str();
        a->add_option("--max-request-bytes", o.max_request_bytes, "largest request frame (socket.request.max.bytes)")
            ->capture_default_str();
        a->add_option("--group-initial-rebalance-delay-ms", o.group_initial_rebalance_delay_ms,
                      "how long a new group waits for more members (group.initial.rebalance.delay.ms; Kafka: 3000)")
            ->capture_default_str()
            ->check(CLI::NonNegativeNumber);
        a->add_option("--group-min-session-timeout-ms", o.group_min_session_timeout_ms,
                      "smallest session timeout a classic member may ask (group.min.session.timeout.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        a->add_option("--group-max-session-timeout-ms", o.group_max_session_timeout_ms,
                      "largest session timeout a classic member may ask (group.max.session.timeout.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        a->add_option("--group-consumer-session-timeout-ms", o.group_consumer_session_timeout_ms,
                      "session timeout of consumer-protocol members (group.consumer.session.timeout.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        a->add_option("--group-consumer-heartbeat-interval-ms", o.group_consumer_heartbeat_interval_ms,
                      "heartbeat interval given to consumer-protocol members (group.consumer.heartbeat.interval.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        a->add_option("--transaction-max-timeout-ms", o.transaction_max_timeout_ms,
                      "largest transaction timeout a producer may ask (transaction.max.timeout.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        a->add_option("--transaction-abort-check-ms", o.transaction_abort_check_ms,
                      "how often timed-out transactions are aborted "
                      "(transaction.abort.timed.out.transaction.cleanup.interval.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        a->add_option("--transactional-id-expiration-ms", o.transactional_id_expiration_ms,
                      "idle transactional ids are forgotten after this (transactional.id.expiration.ms)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
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
