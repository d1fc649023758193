// Client quota accounting for handlers: records a request's usage against
// the quota of its (user, client-id) and keeps the largest throttle time in
// the request context (invoke() puts it in throttle_time_ms and tells the
// connection to mute itself that long).
#pragma once

#include <optional>
#include <string>

#include "broker/request_context.h"
#include "security/quota_manager.h"

namespace ketch::broker {

// The principal's name as quota entities name users ("User:alice" -> "alice").
std::string quota_user(const net::connection_info& conn);

// Records `value` against `type`; returns this recording's throttle time (ms).
int32_t record_quota(request_context& ctx, security::quota_type type, double value);
// Takes a recorded value back (a throttled fetch is answered without data).
void unrecord_quota(request_context& ctx, security::quota_type type, double value);
// The most a fetch may return without certain throttling; nullopt: no quota.
std::optional<double> quota_window_bytes(request_context& ctx, security::quota_type type);

}  // namespace ketch::broker
