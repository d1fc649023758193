// GetTelemetrySubscriptions v0 (KIP-714): the client's instance id (a new one
// when it sends the zero id), its subscription id, the metrics asked for, the
// push interval and the accepted compression types; a get before the push
// interval has passed is THROTTLING_QUOTA_EXCEEDED. Served only when the
// console is on (broker_context::telemetry); otherwise the API is neither
// advertised nor served, as Kafka without a metrics receiver plugin.
// Behaviour: ClientMetricsManager.processGetTelemetrySubscriptionRequest
// (server/src/main/java/org/apache/kafka/server/ClientMetricsManager.java).
#include "base/clock.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/telemetry_client.h"
#include "telemetry/client_metrics_manager.h"

namespace ketch::broker {

using namespace kafka;

awaitable<get_telemetry_subscriptions_response> handle_get_telemetry_subscriptions(
    request_context& ctx, get_telemetry_subscriptions_request& req) {
    get_telemetry_subscriptions_response resp;
    auto* tm = ctx.broker.telemetry;
    if (!tm) {
        resp.error_code = code(error_code::unsupported_version);
        co_return resp;
    }
    auto a = tm->get_subscriptions(req.client_instance_id, telemetry_client(ctx), wall_ms());
    resp.error_code = a.error_code;
    resp.client_instance_id = a.instance;
    resp.subscription_id = a.subscription_id;
    resp.accepted_compression_types = a.accepted_compression;
    resp.push_interval_ms = a.push_interval_ms;
    resp.telemetry_max_bytes = a.telemetry_max_bytes;
    resp.delta_temporality = a.delta_temporality;
    resp.requested_metrics = a.requested_metrics;
    co_return resp;
}

}  // namespace ketch::broker
