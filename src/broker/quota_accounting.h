// Client quota accounting for handlers: records a request's usage against
// the quota of its (user, client-id) and keeps the largest throttle time in
// the request context (invoke() puts it in throttle_time_ms and tells the
// connection to mute itself that long).
#pragma once

#include <optional>
#include <string>

#include "broker/request_context.h"
#include "security/mutation_quota.h"
#include "security/quota_manager.h"

namespace ketch::broker {

// The principal's name as quota entities name users ("User:alice" -> "alice").
std::string quota_user(const net::connection_info& conn);

// Records `value` against `type`; returns this recording's throttle time (ms).
// A throttled recording (and finish_mutations with a throttle) counts one
// throttled response of that quota type (quota_manager::throttled).
int32_t record_quota(request_context& ctx, security::quota_type type, double value);
// Takes a recorded value back (a throttled fetch is answered without data).
void unrecord_quota(request_context& ctx, security::quota_type type, double value);
// The most a fetch may return without certain throttling; nullopt: no quota.
std::optional<double> quota_window_bytes(request_context& ctx, security::quota_type type);

// request_percentage (ClientRequestQuotaManager): `handler_ns` of handler
// time, as a percentage of one thread's time, against the request's quota;
// the throttle is at most one quota window. Exempt as Kafka exempts them:
// Produce with acks=0 (no response), and requests that arrive before the
// connection finished its SASL login (SaslHandshake, SaslAuthenticate,
// ApiVersions), which Kafka's authenticator answers outside the request
// handlers.
void record_request_time(request_context& ctx, int64_t handler_ns, bool during_login);

// The controller_mutation_rate of this request (strict from `strict_since`,
// ControllerApis' strictSinceVersion). Charge it per topic; finish_mutations
// puts its throttle time into the request's.
security::mutation_quota mutation_quota_for(request_context& ctx, int16_t strict_since);
// Charges `partitions` against `q`; false: THROTTLING_QUOTA_EXCEEDED.
bool charge_mutation(security::mutation_quota& q, int32_t partitions);
void finish_mutations(request_context& ctx, const security::mutation_quota& q);

}  // namespace ketch::broker
