// ketch's settings: command-line flags, optionally a ketch.toml, defaults
// suited to a developer's machine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "group/group_config.h"
#include "partition/defaults.h"
#include "share/settings.h"
#include "tenant/catalog.h"
#include "txn/txn_config.h"

namespace ketch::app {

struct options {
    std::string listen = "127.0.0.1:9092";  // host:port; port 0 picks a free one
    // host:port clients are told for the --listen listener, or NAME=host:port
    // for a named one (repeatable); default: the bound address.
    std::vector<std::string> advertised_listeners;
    // NAME=PROTO://host:port, PROTO one of PLAINTEXT, SSL, SASL_PLAINTEXT,
    // SASL_SSL (repeatable). --listen is the PLAINTEXT listener unless one is
    // named PLAINTEXT here.
    std::vector<std::string> listeners;
    // TLS (SSL / SASL_SSL listeners). Without a certificate ketch makes a
    // self-signed one for localhost in <data-dir>/tls/.
    std::string tls_cert, tls_key, tls_client_ca;
    std::string tls_client_auth;  // none, requested, required; default: required with a client CA
    // SASL
    std::string sasl_mechanisms = "PLAIN,SCRAM-SHA-512,SCRAM-SHA-256";
    int64_t connections_max_reauth_ms = 0;     // KIP-368 session lifetime; 0: none
    int64_t auth_timeout_ms = 30000;           // TLS handshake + SASL login must finish within this
    int64_t failed_auth_delay_ms = 100;        // connection.failed.authentication.delay.ms
    std::map<std::string, std::string> users;  // ketch.toml [[users]]: name -> password (stored salted)
    // SASL/OAUTHBEARER (docs/security.md): one validator, unsecured JWTs or
    // JWTs signed by a key of a JWKS; either enables OAUTHBEARER.
    bool oauthbearer_unsecured = false;             // OAuthBearerUnsecuredValidatorCallbackHandler (development only)
    std::string oauthbearer_jwks;                   // sasl.oauthbearer.jwks.endpoint.url: a file or an http:// URL
    int64_t oauthbearer_jwks_refresh_ms = 3600000;  // sasl.oauthbearer.jwks.endpoint.refresh.ms
    std::string oauthbearer_expected_audience;      // sasl.oauthbearer.expected.audience (comma-separated)
    std::string oauthbearer_expected_issuer;        // sasl.oauthbearer.expected.issuer
    int32_t oauthbearer_clock_skew_seconds = 30;    // sasl.oauthbearer.clock.skew.seconds
    std::string oauthbearer_sub_claim = "sub";      // sasl.oauthbearer.sub.claim.name
    std::string oauthbearer_scope_claim = "scope";  // sasl.oauthbearer.scope.claim.name
    std::string oauthbearer_unsecured_required_scope;  // unsecuredValidatorRequiredScope (space-separated)
    int32_t oauthbearer_unsecured_clock_skew_ms = 0;   // unsecuredValidatorAllowableClockSkewMs
    // ACLs (Kafka's StandardAuthorizer); off: everything is allowed and the
    // ACL APIs answer SECURITY_DISABLED.
    bool authorizer = false;  // authorizer.class.name
    std::string super_users;  // super.users: "User:a;User:b"
    // Tenancy (docs/tenancy.md); off: no tenants, nothing mapped.
    bool tenancy = false;
    std::string anonymous_tenant;                     // unauthenticated connections' tenant (development)
    std::map<std::string, std::string> user_tenants;  // ketch.toml [[users]] tenant = "t1": name -> tenant
    tenant::catalog_config tenant_limits;             // ketch.toml [tenant_defaults], [[tenants]]
    bool allow_everyone_if_no_acl_found = false;      // allow.everyone.if.no.acl.found
    // Delegation tokens (KIP-48); no secret: the token APIs answer DELEGATION_TOKEN_AUTH_DISABLED.
    std::string delegation_token_secret_key;                      // delegation.token.secret.key
    int64_t delegation_token_max_lifetime_ms = 604800000;         // delegation.token.max.lifetime.ms
    int64_t delegation_token_expiry_time_ms = 86400000;           // delegation.token.expiry.time.ms
    int64_t delegation_token_expiry_check_interval_ms = 3600000;  // delegation.token.expiry.check.interval.ms
    // Connection limits
    int32_t max_connections = 2147483647;               // max.connections
    std::string max_connections_policy = "wait";        // wait (Kafka) | close
    int32_t max_connections_per_ip = 2147483647;        // max.connections.per.ip
    std::string max_connections_per_ip_overrides;       // "ip:n,ip:n"
    int32_t max_connection_creation_rate = 2147483647;  // per second
    int64_t connections_max_idle_ms = 600000;           // connections.max.idle.ms
    // Client quotas: rates measured over quota_window_num windows of
    // quota_window_size_seconds (quota.window.num / quota.window.size.seconds).
    int32_t quota_window_num = 11;
    int32_t quota_window_size_seconds = 1;
    std::string metrics_listen;   // host:port of the Prometheus /metrics page; empty: off
    bool schema_registry = true;  // serve the schema registry (docs/schema_registry.md)
    // Its host:port (port 0: any free port). Unset: 127.0.0.1:8081, or a free
    // port when --listen's is 0 (http_address_or_default).
    std::string schema_registry_addr;
    bool console = true;  // serve the developer console (docs/console.md)
    // Its host:port; unset: 127.0.0.1:9093, or a free port when --listen's is 0.
    std::string console_addr;
    bool console_tls = false;          // the console over TLS with --tls-cert/--tls-key
    bool console_unprotected = false;  // allow a non-loopback console without TLS and a login
    // Scripted faults (docs/design/faults.md): the console's /api/v1/faults
    // and `ketch fault`. Refused with a non-loopback Kafka listener unless
    // faults_unsafe.
    bool faults = false;
    bool faults_unsafe = false;
    std::string data_dir = "./data";
    int reactors = 0;  // 0: one per core
    bool auto_create_topics = true;
    int32_t default_partitions = 1;
    std::string log_level = "info";
    std::string ready_file;                            // written with host:port once listening
    int64_t flush_ms = partition::k_default_flush_ms;  // acks=0/1 data is fsynced at least this often
    int64_t log_max_open_files = 0;                    // segment files held open at most; 0: a quarter of RLIMIT_NOFILE
    int64_t producer_id_expiration_ms = partition::k_default_producer_id_expiration_ms;  // producer.id.expiration.ms
    int32_t node_id = 1;
    int64_t retention_check_ms = 300000;             // log.retention.check.interval.ms
    int64_t log_cleaner_backoff_ms = 15000;          // log.cleaner.backoff.ms
    double log_cleaner_io_max_bytes_per_second = 0;  // log.cleaner.io.max.bytes.per.second; 0: no limit
    int32_t max_request_bytes = 100 * 1024 * 1024;
    int32_t max_incremental_fetch_session_cache_slots = 1000;  // max.incremental.fetch.session.cache.slots
    int32_t socket_send_buffer_bytes = 102400;                 // socket.send.buffer.bytes; -1: the OS default
    int32_t socket_receive_buffer_bytes = -1;  // socket.receive.buffer.bytes (Kafka: 102400); -1: the OS default
    // The group coordinator's settings (group.*; group/group_config.h holds
    // their defaults) but the migration policy, a name until it is parsed.
    group::group_config group;
    // group.consumer.migration.policy: bidirectional, upgrade, downgrade or disabled
    std::string group_consumer_migration_policy = "bidirectional";
    share::settings share;    // group.share.* (share/settings.h holds their defaults)
    txn::txn_config txn;      // transaction.*, transactional.id.* (txn/txn_config.h holds their defaults)
    std::string config_file;  // ketch.toml
    // Cluster mode (docs/cluster.md): both URLs or neither. Empty: single node.
    std::string cluster;                         // postgres://USER@HOST:PORT/DB
    std::string object_store;                    // s3://BUCKET?endpoint=http://HOST:PORT&region=R
    std::string rack;                            // broker.rack; empty: none
    int64_t cluster_heartbeat_ms = 2000;         // broker.heartbeat.interval.ms
    int64_t cluster_session_timeout_ms = 9000;   // broker.session.timeout.ms
    int64_t cluster_flush_ms = 100;              // the shared log: a flush starts at most this often
    int64_t cluster_flush_bytes = 1 << 20;       // ... or at once when this much is buffered
    int64_t cluster_sweep_interval_ms = 60000;   // the sweeper of orphan objects runs this often (one broker)
    int64_t cluster_sweep_grace_ms = 600000;     // unrecorded objects younger than this are left alone
    int64_t cluster_gc_grace_ms = 600000;        // unreferenced objects are deleted this long after
    int64_t cluster_merge_bytes = 0;             // objects smaller than this are merged (0: never)
    std::string cluster_cache_dir;               // the object cache's disk level ("" none)
    int64_t cluster_cache_dir_bytes = 1 << 30;   // ... bounded by this
    int64_t cluster_read_whole_bytes = 2 << 20;  // objects up to this are read whole, larger ones by ranges
    int64_t cluster_pg_connections = 5;          // the broker's pool of PostgreSQL connections (cluster/pg_pool.h)
    // Inter-broker calls (docs/cluster.md "Inter-broker calls"): Kafka's
    // inter.broker.listener.name (empty: the first PLAINTEXT listener) and
    // sasl.mechanism.inter.broker.protocol (empty: the first of
    // --sasl-mechanisms a broker can log in with); the login's username
    // (else $KETCH_INTER_BROKER_SASL_USERNAME) and a file holding its password
    // (else $KETCH_INTER_BROKER_SASL_PASSWORD); PEM CAs trusted on a TLS
    // listener (empty: --tls-client-ca, else the system's), and a client
    // certificate and key for listeners that require one.
    std::string inter_broker_listener;
    std::string inter_broker_sasl_mechanism;
    std::string inter_broker_sasl_username;
    std::string inter_broker_sasl_password_file;
    std::string inter_broker_tls_ca, inter_broker_tls_cert, inter_broker_tls_key;
    // OAUTHBEARER's login: a file holding the JWT, read again when it changes
    // (Kafka's sasl.oauthbearer.token.endpoint.url=file:...).
    std::string inter_broker_oauthbearer_token_file;
    // Or a token endpoint's (client-credentials grant: Kafka's
    // sasl.oauthbearer.token.endpoint.url=https://..., client id and secret,
    // scope); the CA of an https:// endpoint (empty: the system's).
    std::string inter_broker_oauthbearer_token_endpoint;
    std::string inter_broker_oauthbearer_client_id, inter_broker_oauthbearer_client_secret_file;
    std::string inter_broker_oauthbearer_scope, inter_broker_oauthbearer_tls_ca;
};

// Parses argv (and the config file it names, or ./ketch.toml). Exits the
// process with usage on bad flags.
options parse_options(int argc, char** argv);

// "host", port from "host:port".
std::pair<std::string, uint16_t> split_host_port(const std::string& s);

// The address of an HTTP service of the broker (registry, console): `given`
// when set; else 127.0.0.1 on `default_port`, or on a free port when the
// Kafka listener's is 0, so that brokers started side by side on free ports
// (tests) do not contend for the same HTTP port.
std::string http_address_or_default(const std::string& given, const options& o, uint16_t default_port);

}  // namespace ketch::app
