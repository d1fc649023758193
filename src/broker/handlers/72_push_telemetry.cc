// PushTelemetry v0 (KIP-714): a client's metrics (OTLP MetricsData, compressed
// as it chose), kept per client instance for the console's Clients page.
// Refusals, in Kafka's order: a reserved instance id or a push after a
// terminating one is INVALID_REQUEST, a push before the interval has passed
// (and not terminating) THROTTLING_QUOTA_EXCEEDED, another subscription id
// UNKNOWN_SUBSCRIPTION_ID, a compression id outside 0-4
// UNSUPPORTED_COMPRESSION_TYPE, metrics over telemetry_max_bytes
// TELEMETRY_TOO_LARGE; metrics that do not decompress or decode are
// INVALID_RECORD (Kafka's answer when the receiver plugin fails).
// Behaviour: ClientMetricsManager.processPushTelemetryRequest and
// validatePushRequest (server/src/main/java/org/apache/kafka/server/ClientMetricsManager.java).
#include "base/clock.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/telemetry_client.h"
#include "telemetry/client_metrics_manager.h"

namespace ketch::broker {

using namespace kafka;

awaitable<push_telemetry_response> handle_push_telemetry(request_context& ctx, push_telemetry_request& req) {
    push_telemetry_response resp;
    auto* tm = ctx.broker.telemetry;
    if (!tm) {
        resp.error_code = code(error_code::unsupported_version);
        co_return resp;
    }
    telemetry::push_request p;
    p.instance = req.client_instance_id;
    p.subscription_id = req.subscription_id;
    p.terminating = req.terminating;
    p.compression = req.compression_type;
    p.metrics = req.metrics;
    resp.error_code = tm->push(p, telemetry_client(ctx), wall_ms());
    co_return resp;
}

}  // namespace ketch::broker
