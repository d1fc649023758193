// --tenancy: the per-tenant count limits at the edge of the APIs that grow a
// tenant (docs/tenancy.md "Limits", docs/design/tenancy.md). Applied around
// the handler, after the names were mapped in (internal names), like the
// mapping: the entries over a limit are taken out of the request and put
// back into the response with the refusal, so the handlers know nothing of
// tenants.
//   CreateTopics:     a topic over max_topics or max_partitions -> POLICY_VIOLATION
//   CreatePartitions: partitions over max_partitions             -> POLICY_VIOLATION
//   Produce:          a tenant at max_storage_bytes              -> POLICY_VIOLATION, every partition
// POLICY_VIOLATION is what Kafka answers when its create.topic.policy
// refuses a topic; Kafka has no storage limit, and a non-retriable code
// makes a producer fail at once instead of retrying into a full quota.
// The counts are read when the request arrives: two requests racing may
// together pass a limit by what each adds (docs/design/tenancy.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "broker/request_context.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/produce.h"

namespace ketch::broker {

// The entries refused by a limit, to answer after the handler.
struct tenant_held {
    struct row {
        std::string name;  // internal
        uuid id;
        std::vector<int32_t> partitions;
        int16_t code = 0;
        std::string message;
    };
    std::vector<row> rows;
};

// A tenant's topics and their partitions now (internal names).
struct tenant_footprint {
    int64_t topics = 0, partitions = 0;
};
tenant_footprint footprint_of(broker_context& b, const tenant::scope& s);
// The bytes of every partition of the tenant's topics: the partition
// service's running total when it keeps one (--tenancy), else summed.
int64_t storage_of(broker_context& b, const tenant::scope& s);

template <class M>
void tenant_limits_in(request_context&, M&, tenant_held&) {}
template <class M>
void tenant_limits_out(request_context&, M&, tenant_held&) {}

void tenant_limits_in(request_context& ctx, kafka::create_topics_request& req, tenant_held& held);
void tenant_limits_out(request_context& ctx, kafka::create_topics_response& resp, tenant_held& held);
void tenant_limits_in(request_context& ctx, kafka::create_partitions_request& req, tenant_held& held);
void tenant_limits_out(request_context& ctx, kafka::create_partitions_response& resp, tenant_held& held);
void tenant_limits_in(request_context& ctx, kafka::produce_request& req, tenant_held& held);
void tenant_limits_out(request_context& ctx, kafka::produce_response& resp, tenant_held& held);

// The tenant's counters (the metrics' `tenant` label): a request (and a
// Produce request's bytes) when handled, a response's bytes (Fetch,
// ShareFetch) and its top-level error code when it goes out.
void count_tenant_request(request_context& ctx);
template <class Resp>
void count_tenant_response(request_context& ctx, const Resp& resp, size_t bytes) {
    auto& u = *ctx.tenant_usage;
    if (ctx.api_key == 1 || ctx.api_key == 78) u.add(u.bytes_out, bytes);  // Fetch, ShareFetch
    if constexpr (requires { resp.error_code; })
        if (resp.error_code != 0) u.add(u.errors);
}

}  // namespace ketch::broker
