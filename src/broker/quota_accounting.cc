#include "broker/quota_accounting.h"

#include <algorithm>
#include <chrono>

namespace ketch::broker {

namespace {
int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
}  // namespace

std::string quota_user(const net::connection_info& conn) {
    const std::string& p = conn.principal;
    auto colon = p.find(':');
    return colon == std::string::npos ? p : p.substr(colon + 1);
}

int32_t record_quota(request_context& ctx, security::quota_type type, double value) {
    if (!ctx.broker.quotas) return 0;
    int32_t t = ctx.broker.quotas->record(type, quota_user(ctx.conn), ctx.client_id.value_or(""), value, now_ms());
    ctx.throttle_ms = std::max(ctx.throttle_ms, t);
    return t;
}

void unrecord_quota(request_context& ctx, security::quota_type type, double value) {
    if (ctx.broker.quotas)
        ctx.broker.quotas->unrecord(type, quota_user(ctx.conn), ctx.client_id.value_or(""), value, now_ms());
}

std::optional<double> quota_window_bytes(request_context& ctx, security::quota_type type) {
    if (!ctx.broker.quotas) return std::nullopt;
    return ctx.broker.quotas->max_value_in_window(type, quota_user(ctx.conn), ctx.client_id.value_or(""));
}

}  // namespace ketch::broker
