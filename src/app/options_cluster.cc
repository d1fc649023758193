// The cluster mode settings of options.cc (docs/cluster.md): the engines,
// the shared log's flags and the inter-broker calls.
#include "app/option_settings.h"
#include "app/options.h"

#include <CLI/CLI.hpp>

namespace ketch::app {

using settings = option_settings;

// Cluster mode: PostgreSQL and the object store (docs/cluster.md).
void add_cluster_settings(settings& a, options& o) {
    a.option("cluster", o.cluster,
             "cluster mode: the PostgreSQL holding membership and metadata, postgres://USER@HOST:PORT/DB "
             "(needs --object-store)");
    a.option("object-store", o.object_store,
             "cluster mode: s3://BUCKET[/PREFIX]?endpoint=http[s]://HOST:PORT&region=R[&ca_file=PEM] "
             "(credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)");
    a.option("cluster-cache-dir", o.cluster_cache_dir,
             "cluster mode: a local directory caching what fetches read from the object store (off by default)");
    a.option("rack", o.rack, "cluster mode: broker.rack, this broker's rack as Metadata and DescribeCluster list it");
    a.positive("cluster-heartbeat-ms", o.cluster_heartbeat_ms,
               "cluster mode: how often the broker heartbeats (broker.heartbeat.interval.ms)");
    a.positive("cluster-session-timeout-ms", o.cluster_session_timeout_ms,
               "cluster mode: a broker not heard from for this long is not live (broker.session.timeout.ms)");
    a.positive("cluster-flush-ms", o.cluster_flush_ms,
               "cluster mode: a flush (the buffered batches written as one object and committed) starts at most "
               "this often, measured from the previous flush's start (produce latency and throughput per "
               "connection against object store requests)");
    a.positive("cluster-flush-bytes", o.cluster_flush_bytes,
               "cluster mode: a flush starts at once (not waiting for --cluster-flush-ms) once this much is buffered");
    a.positive("cluster-sweep-interval-ms", o.cluster_sweep_interval_ms,
               "cluster mode: how often one broker deletes objects no commit recorded (orphans)");
    a.positive("cluster-sweep-grace-ms", o.cluster_sweep_grace_ms,
               "cluster mode: an unrecorded object younger than this is not an orphan yet (a commit may be under way)");
    a.positive("cluster-gc-grace-ms", o.cluster_gc_grace_ms,
               "cluster mode: an object no index row references (retention, DeleteRecords, a deleted topic) is "
               "deleted this long after (fetches that read the index before still find it)");
    a.checked("cluster-merge-bytes", o.cluster_merge_bytes,
              "cluster mode: a partition's batches in objects smaller than this are merged into objects of up to 8 "
              "times this, with retention (0: never)",
              CLI::NonNegativeNumber);
    a.positive("cluster-cache-dir-bytes", o.cluster_cache_dir_bytes,
               "cluster mode: the bound of --cluster-cache-dir's files (least recently used out first)");
    a.checked("cluster-pg-connections", o.cluster_pg_connections,
              "cluster mode: the PostgreSQL connections of the broker's pool (stores, reads), open at once at "
              "most; 4 more are the broker's own (heartbeat, LISTEN, commits, the background jobs)",
              CLI::Range(int64_t(3), int64_t(1000)));
    a.checked("cluster-read-whole-bytes", o.cluster_read_whole_bytes,
              "cluster mode: fetches read objects up to this size whole, larger ones by coalesced ranged GETs",
              CLI::NonNegativeNumber);
}

// Cluster mode: how brokers call each other (docs/cluster.md "Inter-broker calls").
void add_inter_broker_settings(settings& a, options& o) {
    a.option("inter-broker-listener", o.inter_broker_listener,
             "cluster mode: inter.broker.listener.name, the listener other brokers are called on (default: the "
             "first PLAINTEXT listener)");
    a.option("inter-broker-sasl-mechanism", o.inter_broker_sasl_mechanism,
             "cluster mode: sasl.mechanism.inter.broker.protocol, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER "
             "(default: the first of --sasl-mechanisms among them)");
    a.option("inter-broker-sasl-username", o.inter_broker_sasl_username,
             "cluster mode: the user brokers log in as on a SASL inter-broker listener (default: "
             "$KETCH_INTER_BROKER_SASL_USERNAME)");
    a.option("inter-broker-sasl-password-file", o.inter_broker_sasl_password_file,
             "cluster mode: a file holding that user's password (default: $KETCH_INTER_BROKER_SASL_PASSWORD)");
    a.option("inter-broker-oauthbearer-token-file", o.inter_broker_oauthbearer_token_file,
             "cluster mode: on an OAUTHBEARER inter-broker login, a file holding the JWT brokers log in with, read "
             "again when it changes (sasl.oauthbearer.token.endpoint.url=file:...)");
    a.option("inter-broker-oauthbearer-token-endpoint", o.inter_broker_oauthbearer_token_endpoint,
             "cluster mode: on an OAUTHBEARER inter-broker login, an http(s):// OAuth token endpoint the JWT is got "
             "from with the client-credentials grant, again at 80% of its lifetime "
             "(sasl.oauthbearer.token.endpoint.url)");
    a.option("inter-broker-oauthbearer-client-id", o.inter_broker_oauthbearer_client_id,
             "cluster mode: the client id sent to --inter-broker-oauthbearer-token-endpoint (default: "
             "$KETCH_INTER_BROKER_OAUTHBEARER_CLIENT_ID)");
    a.option("inter-broker-oauthbearer-client-secret-file", o.inter_broker_oauthbearer_client_secret_file,
             "cluster mode: a file holding the client's secret (default: "
             "$KETCH_INTER_BROKER_OAUTHBEARER_CLIENT_SECRET)");
    a.option("inter-broker-oauthbearer-scope", o.inter_broker_oauthbearer_scope,
             "cluster mode: the scope asked of the token endpoint (default: none)");
    a.option("inter-broker-oauthbearer-tls-ca", o.inter_broker_oauthbearer_tls_ca,
             "cluster mode: PEM CA certificates trusted for an https:// token endpoint (default: the system's)");
    a.option("inter-broker-tls-ca", o.inter_broker_tls_ca,
             "cluster mode: PEM CA certificates trusted on a TLS inter-broker listener (default: --tls-client-ca, "
             "else the system's)");
    a.option("inter-broker-tls-cert", o.inter_broker_tls_cert,
             "cluster mode: PEM client certificate brokers present on a TLS inter-broker listener (mTLS)");
    a.option("inter-broker-tls-key", o.inter_broker_tls_key,
             "cluster mode: PEM private key of --inter-broker-tls-cert");
}

}  // namespace ketch::app
