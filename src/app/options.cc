#include "app/options.h"
#include "app/option_settings.h"
#include "app/users_config.h"

#include <filesystem>
#include <iostream>

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

namespace ketch::app {

namespace {

using settings = option_settings;

// Listeners.
void add_listen_settings(settings& a, options& o) {
    a.option("listen", o.listen, "host:port to listen on (port 0: any free port)")->capture_default_str();
    a.option("advertised-listener", o.advertised_listeners,
             "host:port clients are told to connect to (default: the listen address), or NAME=host:port "
             "for the listener NAME; repeatable");
    a.option("listener", o.listeners,
             "NAME=PROTO://host:port, PROTO one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; repeatable");
}

// TLS, SASL, authorization.
void add_security_settings(settings& a, options& o) {
    a.option("tls-cert", o.tls_cert, "PEM certificate (chain) of SSL/SASL_SSL listeners");
    a.option("tls-key", o.tls_key, "PEM private key of --tls-cert");
    a.option("tls-client-ca", o.tls_client_ca, "PEM CA certificates that sign client certificates (mTLS)");
    a.option("tls-client-auth", o.tls_client_auth,
             "ssl.client.auth: none, requested, required (default: required with --tls-client-ca)")
        ->check(CLI::IsMember({"none", "requested", "required"}));
    a.option("sasl-mechanisms", o.sasl_mechanisms, "SASL mechanisms enabled on SASL listeners")->capture_default_str();
    a.option("connections-max-reauth-ms", o.connections_max_reauth_ms,
             "SASL session lifetime (KIP-368; 0: sessions never expire)")
        ->capture_default_str();
    a.option("auth-timeout-ms", o.auth_timeout_ms,
             "close connections not authenticated (TLS handshake, SASL) within this")
        ->capture_default_str();
    a.option("failed-auth-delay-ms", o.failed_auth_delay_ms,
             "delay before answering a failed login (connection.failed.authentication.delay.ms)")
        ->capture_default_str();
    a.flag("authorizer", o.authorizer,
           "authorize every request against the ACLs (Kafka's StandardAuthorizer); "
           "off: everything is allowed and the ACL APIs answer SECURITY_DISABLED");
    a.option("super-users", o.super_users, "super.users: principals allowed everything, \"User:a;User:b\"");
    a.flag("tenancy", o.tenancy,
           "tenants (docs/tenancy.md): each principal sees only its tenant's topics, groups, transactional ids "
           "and ACLs, named as it named them");
    a.option("anonymous-tenant", o.anonymous_tenant,
             "with --tenancy, the tenant of unauthenticated connections (development only)");
    a.flag("allow-everyone-if-no-acl-found", o.allow_everyone_if_no_acl_found,
           "allow.everyone.if.no.acl.found: a resource without any ACL is open to everyone");
    a.option("delegation-token-secret-key", o.delegation_token_secret_key,
             "delegation.token.secret.key: signs delegation tokens (HMAC-SHA512); unset: tokens disabled");
    a.positive("delegation-token-max-lifetime-ms", o.delegation_token_max_lifetime_ms,
               "delegation.token.max.lifetime.ms: no token lives longer");
    a.positive("delegation-token-expiry-time-ms", o.delegation_token_expiry_time_ms,
               "delegation.token.expiry.time.ms: a token expires this long after creation or renewal");
    a.positive("delegation-token-expiry-check-interval-ms", o.delegation_token_expiry_check_interval_ms,
               "delegation.token.expiry.check.interval.ms: how often expired tokens are removed");
}

// SASL/OAUTHBEARER's token validator (Kafka's sasl.oauthbearer.* and unsecuredValidator* options).
void add_oauthbearer_settings(settings& a, options& o) {
    a.flag("sasl-oauthbearer-unsecured", o.oauthbearer_unsecured,
           "enable OAUTHBEARER with unsecured JWTs (alg none; Kafka's OAuthBearerUnsecuredValidatorCallbackHandler): "
           "for development only, anyone can claim any identity");
    a.option("sasl-oauthbearer-jwks", o.oauthbearer_jwks,
             "enable OAUTHBEARER with JWTs signed (RS256, ES256) by a key of this JWKS: a file or an http:// URL "
             "(sasl.oauthbearer.jwks.endpoint.url)");
    a.positive("sasl-oauthbearer-jwks-refresh-ms", o.oauthbearer_jwks_refresh_ms,
               "how often a JWKS URL is fetched again (sasl.oauthbearer.jwks.endpoint.refresh.ms)");
    a.option("sasl-oauthbearer-expected-audience", o.oauthbearer_expected_audience,
             "comma-separated audiences a signed JWT's aud must name one of (sasl.oauthbearer.expected.audience)");
    a.option("sasl-oauthbearer-expected-issuer", o.oauthbearer_expected_issuer,
             "the iss a signed JWT must have (sasl.oauthbearer.expected.issuer)");
    a.checked("sasl-oauthbearer-clock-skew-seconds", o.oauthbearer_clock_skew_seconds,
              "leeway for a signed JWT's exp and nbf (sasl.oauthbearer.clock.skew.seconds)", CLI::Range(0, 86400));
    a.option("sasl-oauthbearer-sub-claim-name", o.oauthbearer_sub_claim,
             "the claim that names the principal (sasl.oauthbearer.sub.claim.name)")
        ->capture_default_str();
    a.option("sasl-oauthbearer-scope-claim-name", o.oauthbearer_scope_claim,
             "the claim that holds the scope (sasl.oauthbearer.scope.claim.name)")
        ->capture_default_str();
    a.option("sasl-oauthbearer-unsecured-required-scope", o.oauthbearer_unsecured_required_scope,
             "space-separated scope an unsecured JWT must have (unsecuredValidatorRequiredScope)");
    a.checked("sasl-oauthbearer-unsecured-clock-skew-ms", o.oauthbearer_unsecured_clock_skew_ms,
              "leeway for an unsecured JWT's iat and exp (unsecuredValidatorAllowableClockSkewMs)",
              CLI::Range(0, 86400000));
}

// Connection limits, quotas and idle time.
void add_limits_settings(settings& a, options& o) {
    a.option("max-connections", o.max_connections, "max.connections (the acceptor waits when reached)");
    a.checked("max-connections-policy", o.max_connections_policy,
              "at max.connections: wait (Kafka's: the acceptor waits for a free slot) or close (a new "
              "connection is closed at once, after its IP's limit is checked)",
              CLI::IsMember({"wait", "close"}));
    a.option("max-connections-per-ip", o.max_connections_per_ip,
             "max.connections.per.ip (new connections over it are closed)");
    a.option("max-connections-per-ip-overrides", o.max_connections_per_ip_overrides,
             "max.connections.per.ip.overrides: ip:n,ip:n");
    a.option("max-connection-creation-rate", o.max_connection_creation_rate,
             "max.connection.creation.rate: new connections per second (accepting is delayed)");
    a.checked("quota-window-num", o.quota_window_num,
              "quota.window.num: client quota rates are measured over this many windows", CLI::Range(1, 1000));
    a.checked("quota-window-size-seconds", o.quota_window_size_seconds,
              "quota.window.size.seconds: the length of one quota window", CLI::Range(1, 3600));
    a.option("connections-max-idle-ms", o.connections_max_idle_ms,
             "close connections idle this long (connections.max.idle.ms)")
        ->capture_default_str();
}

// The services beside the Kafka port: metrics, schema registry, console, faults.
void add_services_settings(settings& a, options& o) {
    a.option("metrics-listen", o.metrics_listen,
             "host:port serving the broker's metrics at /metrics (Prometheus text; port 0: any free port)");
    a.flag("schema-registry", o.schema_registry,
           "serve the Confluent-compatible schema registry (--schema-registry=false: off)")
        ->capture_default_str();
    a.option("schema-registry-addr", o.schema_registry_addr,
             "host:port of the schema registry's REST API (port 0: any free port; default 127.0.0.1:8081, "
             "or a free port when --listen's port is 0)");
    a.flag("console", o.console, "serve the developer console (pages and JSON API; --console=false: off)")
        ->capture_default_str();
    a.option("console-addr", o.console_addr,
             "host:port of the developer console (port 0: any free port; default 127.0.0.1:9093, or a free "
             "port when --listen's port is 0)");
    a.flag("console-tls", o.console_tls, "serve the console over TLS with --tls-cert and --tls-key");
    a.flag("console-unprotected", o.console_unprotected,
           "allow the console on a non-loopback address without TLS and a login (SASL users)");
    a.flag("faults", o.faults,
           "let users inject faults (errors, latency, dropped connections, disk full, fsync failures, "
           "pauses) through the console's /api/v1/faults and `ketch fault`; loopback listeners only")
        ->capture_default_str();
    a.flag("faults-unsafe", o.faults_unsafe, "allow --faults with a Kafka listener on a non-loopback address");
}

// Data, threads, topics defaults, logging, the log and request sizes.
void add_storage_settings(settings& a, options& o) {
    a.option("data-dir", o.data_dir, "where topics, logs and metadata live")->capture_default_str();
    a.option("reactors", o.reactors, "network threads (0: one per core)")->capture_default_str();
    a.option("auto-create-topics", o.auto_create_topics,
             "create unknown topics on Metadata/Produce (auto.create.topics.enable)")
        ->capture_default_str();
    a.option("default-partitions", o.default_partitions, "partitions of a new topic (num.partitions)")
        ->capture_default_str();
    a.option("log-level", o.log_level, "trace, debug, info, warn, error")->capture_default_str();
    a.option("ready-file", o.ready_file, "file written with host:port once the broker listens");
    a.option("flush-ms", o.flush_ms, "fsync acks=0/1 data at least this often")->capture_default_str();
    a.option("log-max-open-files", o.log_max_open_files,
             "segment files kept open at most; idle ones are closed and reopened on use (0: a quarter of the "
             "process's open-file limit, at least 64; -1: no limit)")
        ->capture_default_str();
    a.option("node-id", o.node_id, "this broker's node id")->capture_default_str();
    a.option("retention-check-ms", o.retention_check_ms, "how often retention runs (log.retention.check.interval.ms)")
        ->capture_default_str();
    a.positive("log-cleaner-backoff-ms", o.log_cleaner_backoff_ms,
               "how often the log cleaner looks for compacted logs to clean (log.cleaner.backoff.ms)");
    a.checked("log-cleaner-io-max-bytes-per-second", o.log_cleaner_io_max_bytes_per_second,
              "the log cleaner's read+write rate limit (log.cleaner.io.max.bytes.per.second); 0: none",
              CLI::NonNegativeNumber);
    a.option("producer-id-expiration-ms", o.producer_id_expiration_ms,
             "forget an idle producer's sequence state after this long (producer.id.expiration.ms; "
             "checked with retention)")
        ->capture_default_str();
    a.option("max-request-bytes", o.max_request_bytes, "largest request frame (socket.request.max.bytes)")
        ->capture_default_str();
    a.checked("socket-send-buffer-bytes", o.socket_send_buffer_bytes,
              "SO_SNDBUF of client connections (socket.send.buffer.bytes); -1: the OS default",
              CLI::Range(-1, std::numeric_limits<int32_t>::max()));
    a.checked("socket-receive-buffer-bytes", o.socket_receive_buffer_bytes,
              "SO_RCVBUF of client connections (socket.receive.buffer.bytes; Kafka: 102400); -1: the OS default",
              CLI::Range(-1, std::numeric_limits<int32_t>::max()));
    a.checked("max-incremental-fetch-session-cache-slots", o.max_incremental_fetch_session_cache_slots,
              "fetch sessions (KIP-227) the broker keeps (max.incremental.fetch.session.cache.slots); 0: none, "
              "every fetch is answered sessionless",
              CLI::NonNegativeNumber);
}

// Group coordinator (classic, consumer and share groups).
void add_groups_settings(settings& a, options& o) {
    a.checked("group-initial-rebalance-delay-ms", o.group.initial_rebalance_delay_ms,
              "how long a new group waits for more members (group.initial.rebalance.delay.ms; Kafka: 3000)",
              CLI::NonNegativeNumber);
    a.positive("group-min-session-timeout-ms", o.group.min_session_timeout_ms,
               "smallest session timeout a classic member may ask (group.min.session.timeout.ms)");
    a.positive("group-max-session-timeout-ms", o.group.max_session_timeout_ms,
               "largest session timeout a classic member may ask (group.max.session.timeout.ms)");
    a.positive("group-consumer-session-timeout-ms", o.group.consumer_session_timeout_ms,
               "session timeout of consumer-protocol members (group.consumer.session.timeout.ms)");
    a.positive("group-streams-session-timeout-ms", o.group.streams_session_timeout_ms,
               "session timeout of streams-group members (group.streams.session.timeout.ms)");
    a.positive("group-streams-heartbeat-interval-ms", o.group.streams_heartbeat_interval_ms,
               "heartbeat interval given to streams-group members (group.streams.heartbeat.interval.ms)");
    a.checked("group-streams-num-standby-replicas", o.group.streams_num_standby_replicas,
              "standby replicas of each stateful task of a streams group (group.streams.num.standby.replicas, 0-2)",
              CLI::Range(0, 2));
    a.checked("group-streams-initial-rebalance-delay-ms", o.group.streams_initial_rebalance_delay_ms,
              "how long a new streams group waits for more members before its first task assignment; members "
              "are answered ASSIGNMENT_DELAYED meanwhile (group.streams.initial.rebalance.delay.ms; 0: none)",
              CLI::NonNegativeNumber);
    a.checked("group-streams-assignment-interval-ms", o.group.streams_assignment_interval_ms,
              "least time between two task assignments of a streams group "
              "(group.streams.assignment.interval.ms, 0-15000; 0: at every change)",
              CLI::Range(0, 15000));
    a.positive("group-consumer-heartbeat-interval-ms", o.group.consumer_heartbeat_interval_ms,
               "heartbeat interval given to consumer-protocol members (group.consumer.heartbeat.interval.ms)");
    a.checked("group-consumer-assignment-interval-ms", o.group.consumer_assignment_interval_ms,
              "least time between two target assignments of a consumer group; a member reconciles towards "
              "the last one meanwhile (group.consumer.assignment.interval.ms, 0-15000; 0: at every change)",
              CLI::Range(0, 15000));
    a.option("group-consumer-migration-policy", o.group_consumer_migration_policy,
             "online conversion between classic and consumer groups (group.consumer.migration.policy): "
             "bidirectional, upgrade, downgrade or disabled")
        ->capture_default_str()
        ->transform(CLI::IsMember({"bidirectional", "upgrade", "downgrade", "disabled"}, CLI::ignore_case));
    a.checked("group-share-record-lock-duration-ms", o.share.record_lock_duration_ms,
              "how long a share-group member holds the records it acquired "
              "(group.share.record.lock.duration.ms; a group's share.record.lock.duration.ms overrides it)",
              CLI::Range(1000, 3600000));
    a.positive("group-share-session-timeout-ms", o.share.session_timeout_ms,
               "session timeout of share-group members (group.share.session.timeout.ms)");
    a.positive("group-share-heartbeat-interval-ms", o.share.heartbeat_interval_ms,
               "heartbeat interval given to share-group members (group.share.heartbeat.interval.ms)");
    a.checked("group-share-assignment-interval-ms", o.share.assignment_interval_ms,
              "least time between two target assignments of a share group (group.share.assignment.interval.ms)",
              CLI::Range(0, 15000));
}

// Transaction coordinator.
void add_transactions_settings(settings& a, options& o) {
    a.positive("transaction-max-timeout-ms", o.txn.max_timeout_ms,
               "largest transaction timeout a producer may ask (transaction.max.timeout.ms)");
    a.positive("transaction-abort-check-ms", o.txn.abort_timed_out_interval_ms,
               "how often timed-out transactions are aborted "
               "(transaction.abort.timed.out.transaction.cleanup.interval.ms)");
    a.positive("transactional-id-expiration-ms", o.txn.transactional_id_expiration_ms,
               "idle transactional ids are forgotten after this (transactional.id.expiration.ms)");
}
}  // namespace

options parse_options(int argc, char** argv) {
    options o;
    // The config file is found first (a flag or ./ketch.toml), so flags win over it.
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--config") o.config_file = argv[i + 1];
    if (o.config_file.empty() && std::filesystem::exists("ketch.toml")) o.config_file = "ketch.toml";
    toml::table file;
    if (!o.config_file.empty()) {
        try {
            file = toml::parse_file(o.config_file);
            read_users(file, o);
            read_tenants(file, o);
        } catch (const std::exception& e) {
            std::cerr << "ketch: cannot read " << o.config_file << ": " << e.what() << "\n";
            std::exit(2);
        }
    }

    CLI::App app{"ketch: a Kafka-compatible broker"};
    app.set_version_flag("--version", "ketch 0.1.0 (Kafka protocol of Apache Kafka 4.3.1)");
    auto add_common = [&](CLI::App* app_or_env) {
        app_or_env->add_option("--config", o.config_file, "ketch.toml to read (default ./ketch.toml if present)");
        settings a(app_or_env, file);
        for (auto add : {add_listen_settings, add_security_settings, add_oauthbearer_settings, add_limits_settings,
                         add_services_settings, add_storage_settings, add_groups_settings, add_transactions_settings,
                         add_cluster_settings, add_inter_broker_settings})
            add(a, o);
    };
    add_common(&app);
    app.footer(
        "The Kafka command line: ketch topic|produce|consume|group|acl|user|quota|cluster|txn|env --help "
        "(docs/cli.md)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        std::exit(app.exit(e));
    }
    if (o.cluster.empty() != o.object_store.empty()) {
        std::cerr << "ketch: --cluster and --object-store go together (cluster mode needs both)\n";
        std::exit(2);
    }
    return o;
}

}  // namespace ketch::app
