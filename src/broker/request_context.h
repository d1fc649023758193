// One request's view of the world: its header, its connection, the broker.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/error_code.h"
#include "broker/broker_context.h"
#include "net/request_handler.h"
#include "security/acl.h"
#include "tenant/names.h"
#include "tenant/usage.h"

namespace ketch::broker {

struct request_context {
    int16_t api_key = 0;
    int16_t api_version = 0;
    int32_t correlation_id = 0;
    std::optional<std::string> client_id;
    net::connection_info& conn;
    broker_context& broker;

    // Set by a handler whose request wants no response (Produce with acks=0).
    bool no_response = false;
    // Set by a handler to close the connection after this request (no answer).
    bool close_connection = false;
    // Set by a SASL handler when authentication failed: the answer goes out
    // after the failed-authentication delay, then the connection is closed.
    bool auth_failed = false;
    // The request's size in bytes (header + body), for the produce quota.
    size_t request_bytes = 0;
    // Set when the request went over a client quota: the response's
    // throttle_time_ms, and the connection is muted that long (KIP-219).
    int32_t throttle_ms = 0;
    // What a scripted fault did to this request (--faults; fault_hook.h),
    // for the traffic inspector; empty: nothing.
    std::string fault;
    // --tenancy: the tenant this request's names belong to (tenant_names.h
    // maps them in and out around the handler); null: no tenancy, a super
    // user or the console, who see internal names.
    std::shared_ptr<const tenant::scope> tenant;
    // --tenancy with the tenant catalog: the tenant's counters (metrics).
    tenant::usage* tenant_usage = nullptr;

    // Kafka's AuthHelper: may this connection's principal, from its peer's
    // IP, do `op` on the resource? Always true without --authorizer (Kafka
    // without authorizer.class.name).
    bool authorize(security::acl_operation op, security::resource_type type, const std::string& name) const;
    // The cluster; for a tenant's request also its tenant's CLUSTER resource
    // "T~kafka-cluster" (a tenant admin: docs/tenancy.md), either allowing.
    bool authorize_cluster(security::acl_operation op) const;
    // Authorizer.authorizeByResourceType: `op` on at least one resource of `type`.
    bool authorize_any(security::acl_operation op, security::resource_type type) const;
    // The peer's IP address (Kafka's clientAddress().getHostAddress()).
    std::string host() const;
};

// All operations of a TOPIC resource (READ, WRITE, CREATE, DELETE, ALTER,
// DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS) as the bitfield Kafka reports
// when nothing restricts the principal (3576, recorded): Metadata's and
// DescribeTopicPartitions' `all`.
constexpr int32_t k_all_topic_operations =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);

// AuthHelper.authorizedOperations: the bits (1 << operation code) of `all`
// the caller may do on the resource; `all` itself without an authorizer.
int32_t authorized_operations(const request_context& ctx, security::resource_type type, const std::string& name,
                              int32_t all);
// The same for the CLUSTER resource as authorize_cluster sees it: for a
// tenant's request, an operation allowed on its tenant's cluster
// (T~kafka-cluster) or on kafka-cluster (Metadata / DescribeCluster's
// cluster_authorized_operations, so a tenant admin sees what it may do).
int32_t cluster_authorized_operations(const request_context& ctx, int32_t all);

inline int16_t code(error_code e) { return int16_t(e); }

}  // namespace ketch::broker
