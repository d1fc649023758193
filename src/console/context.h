// What the console's resources see: the in-process Kafka client and the
// broker facts that no Kafka API answers (version, data dir, uptime, the
// request metrics, the web addresses).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "console/kafka_client.h"
#include "fault/registry.h"
#include "http/message.h"
#include "inspect/traffic_ring.h"
#include "net/connection_stats.h"
#include "net/request_metrics.h"
#include "security/delegation_tokens.h"
#include "telemetry/client_metrics_manager.h"
#include "tenant/catalog.h"

namespace ketch::console {

struct listener_info {
    std::string name, protocol, host;
    uint16_t port = 0;
    std::string advertised;  // host:port
};

// One file of a partition's log (the topic page's segments).
struct segment_row {
    int64_t base_offset = 0, next_offset = 0;
    uint64_t size_bytes = 0;
    int64_t created_ms = 0, max_timestamp = -1;
};

// What removing a deleted tenant's transactional ids did (txn::transaction_coordinator::purge).
struct txn_purge {
    int64_t removed = 0, aborted = 0, left = 0;
};

// Cluster mode: a tenant's groups and transactional ids in PostgreSQL (each
// held by the broker that coordinates it).
struct tenant_leftovers {
    int64_t groups = 0, transactional_ids = 0;
};

// Cluster mode's part of a tenant's deletion (app/cluster_tenants.h).
struct cluster_purge_hooks {
    // Every other broker closes the tenant's connections and removes the
    // transactional ids and groups of it that it coordinates; what PostgreSQL
    // holds of the tenant before.
    std::function<tenant_leftovers(const std::string& tenant)> announce;
    // Waits (bounded) until PostgreSQL holds none of them; what is left.
    std::function<tenant_leftovers(const std::string& tenant)> settle;
};

// Cluster mode: the other brokers, asked over the inter-broker channel
// (app/console_peers.h) for what only they answer: the groups they
// coordinate (console/cluster_view.h).
// A request goes as the broker's inter-broker principal, so the console
// first asks its own broker as the logged-in principal (which authorizes it
// and answers NOT_COORDINATOR) and only then the other broker.
struct peer_brokers {
    // The live brokers' node ids, this one among them.
    std::function<std::vector<int32_t>()> live;
    // Sends a request to `node`: encode(v) writes its body at v, the newest
    // version both brokers serve up to `cap`. The version used and the
    // answer's body. Throws kafka_call_error when `node` is not reached in
    // time or refuses the login, or serves no version of the API.
    using encoder = std::function<bytes(int16_t version)>;
    std::function<std::pair<int16_t, bytes>(int32_t node, int16_t key, int16_t cap, const encoder& encode)> call;
    // One of `node`'s local console pages (console/local_pages.h: the
    // traffic inspector's, the telemetry clients') for `principal`, over
    // ketch's private ConsolePeer request (broker/console_peer.h). Throws
    // kafka_call_error as `call` does, and when `node` refuses the request.
    struct page {
        int status = 0;
        std::string body;  // JSON
    };
    std::function<page(int32_t node, const std::string& path, const std::string& query, const std::string& principal)>
        page_of;
    // The one change asked of `node`'s local pages: POST /api/v1/<path> with
    // the JSON `body` for `principal` (a tenant's user's offset reset of a
    // group `node` coordinates), over ConsolePeer v1. Throws as page_of.
    std::function<page(int32_t node, const std::string& path, const std::string& body, const std::string& principal)>
        post_to;
};

struct context {
    kafka_client* kafka = nullptr;
    std::string version = "0.1.0";
    std::string kafka_version = "4.3.1";
    int32_t node_id = 1;
    std::string data_dir;
    std::vector<listener_info> listeners;
    std::string schema_registry_url;  // empty: off
    // Confluent-framed bytes (magic byte 0, schema id) decoded through the
    // schema registry: {"schema_id", "schema_type", "json"}; null when there
    // is no registry or the bytes are not framed or do not decode.
    std::function<nlohmann::json(byte_view)> decode_framed;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    int64_t started_unix_ms = 0;
    const net::request_metrics* metrics = nullptr;
    const net::connection_stats* connections = nullptr;
    inspect::traffic_ring* traffic = nullptr;                // null: no inspector
    telemetry::client_metrics_manager* telemetry = nullptr;  // KIP-714 client metrics; null: off
    fault::registry* faults = nullptr;                       // --faults; null: off (/api/v1/faults answers 404)
    // Open connections by client software ("name version" -> count); may be empty.
    std::function<std::map<std::string, int64_t>(const std::function<bool(const std::string& principal)>& keep)>
        client_software;
    // A partition's segments, oldest first (the last is the active one);
    // empty when the log has none. Unset: the topic page shows no segments.
    std::function<std::vector<segment_row>(const std::string& topic, int32_t partition)> segments;
    // --tenancy: the tenants the admin API manages (/api/v1/tenants); null: off (404).
    tenant::catalog* tenants = nullptr;
    // Deleting a tenant (console/tenant_purge.cc) reaches what no Kafka API
    // removes: the broker's delegation tokens (null: none) and its
    // transactional ids (unset: none).
    security::delegation_tokens* tokens = nullptr;
    std::function<txn_purge(const std::function<bool(const std::string& transactional_id)>& owned)> purge_transactions;
    // Cluster mode: the other brokers' part (unset on a single node).
    cluster_purge_hooks cluster_purge;
    // Cluster mode: the other brokers (unset on a single node).
    peer_brokers peers;
    // Limits of the message browser.
    size_t browse_max_bytes = 4 * 1024 * 1024;
    int browse_max_records = 500;
};

// The principal a console request acts as: its login, or User:ANONYMOUS.
inline std::string principal_of(const http::request& req) {
    return req.principal.empty() ? "User:ANONYMOUS" : req.principal;
}

}  // namespace ketch::console
