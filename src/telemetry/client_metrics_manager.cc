#include "telemetry/client_metrics_manager.h"

#include <algorithm>

#include "base/error_code.h"
#include "record/codec.h"

namespace ketch::telemetry {

namespace {

int16_t code(error_code e) { return int16_t(e); }

// ClientMetricsManager.SUPPORTED_COMPRESSION_TYPES: zstd, lz4, gzip, snappy.
const std::vector<int8_t> k_accepted_compression = {4, 3, 1, 2};

// Kafka's Uuid.RESERVED: the zero id and the metadata topic id (0...01).
bool reserved(const uuid& id) {
    for (size_t i = 0; i + 1 < id.b.size(); ++i)
        if (id.b[i]) return false;
    return id.b.back() <= 1;
}

// ClientMetricsInstance.maybeUpdateGetRequestTimestamp.
bool accept_get(client_instance& c, int64_t now) {
    if (now - std::max(c.last_get_ms, c.last_push_ms) < c.sub.interval_ms) return false;
    c.last_get_ms = now;
    return true;
}

// ClientMetricsInstance.maybeUpdatePushRequestTimestamp: the first push after
// a get is accepted at once (clients jitter the interval).
bool accept_push(client_instance& c, int64_t now) {
    bool ok = c.last_get_ms > c.last_push_ms || now - c.last_push_ms >= c.sub.interval_ms;
    if (ok) c.last_push_ms = now;
    return ok;
}

}  // namespace

subscription console_default_subscription() {
    subscription s;
    s.name = "ketch-console-default";
    s.metrics = {"org.apache.kafka.consumer.", "org.apache.kafka.producer."};
    s.interval_ms = 5000;
    return s;
}

client_metrics_manager::client_metrics_manager(manager_options opts) : opts_(std::move(opts)) {
    if (opts_.default_subscription.name.empty()) opts_.default_subscription = console_default_subscription();
}

void client_metrics_manager::update_subscription(const std::string& name,
                                                 const std::map<std::string, std::string>& configs) {
    std::lock_guard lock(mu_);
    if (configs.empty()) {
        if (subs_.erase(name)) ++subs_version_;
        return;
    }
    subs_[name] = parse_subscription(name, configs);
    ++subs_version_;
}

std::vector<subscription> client_metrics_manager::active_locked() const {
    if (subs_.empty()) return {opts_.default_subscription};
    std::vector<subscription> out;
    for (auto& [name, s] : subs_) out.push_back(s);
    return out;
}

void client_metrics_manager::expire_locked(int64_t now_ms) {
    for (auto it = instances_.begin(); it != instances_.end();) {
        int64_t idle = std::max<int64_t>(opts_.limits.min_idle_expiry_ms, int64_t(it->second.sub.interval_ms) * 3);
        it = now_ms - it->second.last_seen_ms > idle ? instances_.erase(it) : std::next(it);
    }
}

// ClientMetricsManager.clientInstance: found, created (evicting the least
// recently seen instance when full), or given a fresh subscription state when
// the subscriptions changed since it was evaluated. Its pushed metrics stay.
client_instance& client_metrics_manager::instance_locked(const uuid& id, const client_meta& meta, int64_t now_ms) {
    expire_locked(now_ms);
    auto it = instances_.find(id);
    if (it == instances_.end()) {
        if (instances_.size() >= opts_.limits.max_instances) {
            auto oldest = std::min_element(instances_.begin(), instances_.end(), [](auto& a, auto& b) {
                return a.second.last_seen_ms < b.second.last_seen_ms;
            });
            instances_.erase(oldest);
        }
        it = instances_.emplace(id, client_instance{}).first;
        it->second.id = id;
        it->second.meta = meta;
        it->second.first_seen_ms = now_ms;
        it->second.sub = subscription_for(active_locked(), id, meta);
        it->second.subscription_version = subs_version_;
    } else if (it->second.subscription_version < subs_version_) {
        auto& c = it->second;
        c.sub = subscription_for(active_locked(), id, c.meta);
        c.subscription_version = subs_version_;
        c.last_get_ms = c.last_push_ms = 0;
        c.terminating = false;
        c.last_error = 0;
    }
    it->second.last_seen_ms = now_ms;
    return it->second;
}

subscriptions_answer client_metrics_manager::get_subscriptions(const uuid& requested, const client_meta& meta,
                                                               int64_t now_ms) {
    std::lock_guard lock(mu_);
    uuid id = requested;
    if (id.is_zero()) do
            id = uuid::random();
        while (instances_.count(id));
    auto& c = instance_locked(id, meta, now_ms);
    subscriptions_answer a;
    // validateGetRequest (4.3.1): a get before the push interval has passed is
    // throttled, unless the last push failed with UNKNOWN_SUBSCRIPTION_ID or
    // UNSUPPORTED_COMPRESSION_TYPE (the client must fetch a new subscription).
    if (!accept_get(c, now_ms) && c.last_error != code(error_code::unknown_subscription_id) &&
        c.last_error != code(error_code::unsupported_compression_type)) {
        a.error_code = code(error_code::throttling_quota_exceeded);
        return a;
    }
    c.last_error = 0;
    a.instance = id;
    a.subscription_id = c.sub.id;
    a.accepted_compression = k_accepted_compression;
    a.push_interval_ms = c.sub.interval_ms;
    a.telemetry_max_bytes = opts_.telemetry_max_bytes;
    a.delta_temporality = true;
    a.requested_metrics = c.sub.metrics;
    return a;
}

int16_t client_metrics_manager::push(const push_request& req, const client_meta& meta, int64_t now_ms) {
    if (reserved(req.instance)) return code(error_code::invalid_request);
    std::lock_guard lock(mu_);
    auto& c = instance_locked(req.instance, meta, now_ms);
    // validatePushRequest, in Kafka's order; `terminating` is set whatever the outcome.
    auto refuse = [&](error_code e) {
        c.last_error = code(e);
        c.terminating = req.terminating;
        return code(e);
    };
    if (c.terminating) return refuse(error_code::invalid_request);
    if (!accept_push(c, now_ms) && !req.terminating) return refuse(error_code::throttling_quota_exceeded);
    if (req.subscription_id != c.sub.id) return refuse(error_code::unknown_subscription_id);
    if (req.compression < 0 || req.compression > 4) return refuse(error_code::unsupported_compression_type);
    if (req.metrics.size() > size_t(opts_.telemetry_max_bytes)) return refuse(error_code::telemetry_too_large);
    c.terminating = req.terminating;
    if (req.metrics.empty()) {
        c.last_error = 0;
        return 0;
    }
    // The receiver plugin's part: a push it cannot read is INVALID_RECORD.
    auto inflated = record::decompress(record::compression(req.compression), req.metrics, opts_.max_inflated_bytes);
    if (!inflated.ok()) return c.last_error = code(error_code::invalid_record);
    auto decoded = decode_metrics_data(inflated.data);
    if (!decoded.ok()) return c.last_error = code(error_code::invalid_record);
    add_points(c, std::move(decoded.value()), opts_.limits);
    ++c.pushes;
    c.last_metrics_ms = now_ms;
    c.last_error = 0;
    return 0;
}

std::vector<instance_info> client_metrics_manager::instances(int64_t now_ms) {
    std::lock_guard lock(mu_);
    expire_locked(now_ms);
    std::vector<instance_info> out;
    for (auto& [id, c] : instances_) out.push_back(static_cast<const instance_info&>(c));
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first_seen_ms > b.first_seen_ms; });
    return out;
}

std::optional<client_instance> client_metrics_manager::instance(const uuid& id, int64_t now_ms) {
    std::lock_guard lock(mu_);
    expire_locked(now_ms);
    auto it = instances_.find(id);
    if (it == instances_.end()) return std::nullopt;
    return it->second;
}

}  // namespace ketch::telemetry
