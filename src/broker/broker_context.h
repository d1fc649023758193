// What handlers reach: the broker's services (the metadata store, the partitions,
// the group coordinator) and its settings. Built by app/, passed by
// reference, never global.
#pragma once

#include <functional>
#include <string>

#include "broker/broker_config.h"
#include "inspect/traffic_ring.h"
#include "security/sasl_session.h"

namespace ketch::meta {
class topic_registry;
}
namespace ketch::partition {
class service;
}
namespace ketch::meta {
class credential_store;
class resource_config_registry;
}  // namespace ketch::meta
namespace ketch::security {
class quota_config;
class quota_manager;
}  // namespace ketch::security
namespace ketch::txn {
class producer_ids;
class transaction_coordinator;
}  // namespace ketch::txn
namespace ketch::group {
class group_coordinator;
}
namespace ketch::fault {
class registry;
}
namespace ketch::security {
class authorizer;
class delegation_tokens;
}  // namespace ketch::security
namespace ketch::share {
class coordinator;
}
namespace ketch::fetch {
class session_cache;
}

namespace ketch::tenant {
class directory;
class catalog;
}  // namespace ketch::tenant

namespace ketch::cluster {
class membership;
}

namespace ketch::telemetry {
class client_metrics_manager;
}

namespace ketch::broker {

class offsets_topic;
class tenant_storage_totals;

struct broker_context {
    broker_config config;
    meta::topic_registry& topics;
    // Every partition's data: open, append, read, wait durable, wake fetches
    // (partition/service.h).
    partition::service& partitions;
    txn::producer_ids& producer_ids;
    group::group_coordinator& groups;
    // Runs work that blocks on the disk (an OffsetCommit's fsync) away from
    // the network threads. Unset: the work runs on the calling thread.
    std::function<void(std::function<void()>)> run_blocking;
    // Cluster mode: runs Fetch's reads (PostgreSQL index queries, object
    // GETs) on a pool of their own, so that a slow read never holds up the
    // other connections of its reactor. Unset (single node): reads run on
    // the reactor (page-cache reads and sendfile).
    std::function<void(std::function<void()>)> run_reads;
    // Runs the appends of a large Produce request (broker/produce_appends.h)
    // on a pool of their own, one job per partition, so that the reactor
    // reads and answers its other connections meanwhile. Unset: on the reactor.
    std::function<void(std::function<void()>)> run_appends;
    // Cluster mode: reads the topics `missing` from PostgreSQL (those names
    // only) for a request naming them, topics this broker does not know
    // (broker/topic_read_through.h), and adds those found; false when the
    // bounds refused every name or PostgreSQL failed. Blocks: called on
    // run_blocking. Unset (single node): the registry is the truth.
    std::function<bool(const std::vector<std::string>& missing)> read_topics_through;
    // SCRAM credentials (SASL logins, Describe/AlterUserScramCredentials);
    // null: no SASL listener and no credential API.
    meta::credential_store* credentials = nullptr;
    // Per-group config overrides (GROUP config resources) and client metrics
    // subscriptions (CLIENT_METRICS); null: such resources are answered
    // INVALID_REQUEST.
    meta::resource_config_registry* group_configs = nullptr;
    meta::resource_config_registry* client_metrics_configs = nullptr;
    security::sasl_config sasl;  // mechanisms, connections.max.reauth.ms
    // Client quotas: the settings (Describe/AlterClientQuotas) and their
    // enforcement; null: no quota API and nothing throttled.
    security::quota_config* quota_settings = nullptr;
    security::quota_manager* quotas = nullptr;
    // The transaction coordinator; unset: transactional requests are
    // answered COORDINATOR_NOT_AVAILABLE.
    txn::transaction_coordinator* txns = nullptr;
    // The ACL authorizer (--authorizer); null: every request is authorized
    // and the ACL APIs answer SECURITY_DISABLED.
    security::authorizer* authorizer = nullptr;
    // Delegation tokens (CreateDelegationToken..., SCRAM logins by token);
    // null or without a secret: the token APIs answer DELEGATION_TOKEN_AUTH_DISABLED.
    security::delegation_tokens* tokens = nullptr;
    // Share groups (KIP-932); null: the share APIs answer UNSUPPORTED_VERSION.
    share::coordinator* shares = nullptr;
    // Fetch sessions (KIP-227, fetch/session_cache.h); null: every fetch is
    // answered sessionless.
    fetch::session_cache* fetch_sessions = nullptr;
    // The traffic inspector's ring (console); null: no inspector.
    inspect::traffic_ring* traffic = nullptr;
    // KIP-714 client telemetry (console on); null: GetTelemetrySubscriptions
    // and PushTelemetry are neither advertised nor served.
    telemetry::client_metrics_manager* telemetry = nullptr;
    // Scripted faults (--faults; fault_hook.h); null: off, and no request
    // pays more than this pointer's test.
    fault::registry* faults = nullptr;
    // __consumer_offsets (offsets_topic.h): created on the first group
    // lookup; null: not kept (unit tests).
    offsets_topic* consumer_offsets = nullptr;
    // Cluster mode (--cluster; docs/cluster.md): the live brokers Metadata and
    // DescribeCluster list. Null: a single node, which lists itself.
    const cluster::membership* cluster = nullptr;
    // --tenancy (docs/tenancy.md): the tenant of each connection; null: off,
    // and no request pays more than this pointer's test.
    const tenant::directory* tenants = nullptr;
    // --tenancy: the tenants' limits, rates and counters (tenant/catalog.h);
    // null: no limits.
    tenant::catalog* tenant_catalog = nullptr;
    // --tenancy in cluster mode: the tenants' bytes in the shared log
    // (max_storage_bytes; tenant_storage_totals.h); null: this broker's own count.
    tenant_storage_totals* tenant_storage = nullptr;
    // Cluster mode with the console: one of this broker's local console pages
    // (a GET, or the POST of an offset reset) as another broker's console asks
    // for it for `principal` (ConsolePeer, console_peer.h): its HTTP status
    // and JSON. Unset: refused. Blocks (its in-process Kafka calls): run off
    // the reactor.
    struct console_page {
        int16_t status = 404;
        std::string body;
    };
    struct console_page_request {
        std::string method = "GET", path, query, body;
    };
    std::function<console_page(const console_page_request& page, const std::string& principal)> console_pages;
    // Who may ask for them: connections of the inter-broker listener (its
    // name), with the inter-broker login's principal when the brokers log in
    // with SASL ("User:broker"; empty: any principal, the PLAINTEXT case).
    std::string console_peer_listener, console_peer_principal;
};

}  // namespace ketch::broker
