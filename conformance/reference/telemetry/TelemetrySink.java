// A client telemetry receiver for the reference broker: with it on the
// classpath and named in metric.reporters, Kafka serves GetTelemetrySubscriptions
// and PushTelemetry (KIP-714). It accepts every payload and keeps nothing;
// the conformance scenario `telemetry` records Kafka's answers with it.
package ketch.conform;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.telemetry.ClientTelemetry;
import org.apache.kafka.server.telemetry.ClientTelemetryReceiver;

public class TelemetrySink implements MetricsReporter, ClientTelemetry {
    @Override public void configure(Map<String, ?> configs) {}
    @Override public void init(List<KafkaMetric> metrics) {}
    @Override public void metricChange(KafkaMetric metric) {}
    @Override public void metricRemoval(KafkaMetric metric) {}
    @Override public void close() {}

    @Override
    public ClientTelemetryReceiver clientReceiver() {
        return (context, payload) -> { };
    }
}
