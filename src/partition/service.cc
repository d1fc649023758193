#include "partition/service.h"

#include <spdlog/spdlog.h>

#include "base/clock.h"
#include "partition/errors.h"
#include "partition/settings.h"

namespace ketch::partition {

service::service(meta::topic_registry& topics, storage_engine& engine, service_config config)
    : topics_(topics), engine_(engine), config_(std::move(config)) {}

int64_t service::now_ms() const {
    if (config_.clock_ms) return config_.clock_ms();
    return wall_ms();
}

result<partition_handle, error_code> service::open(const meta::resolved_topic& topic, int32_t partition) {
    return open_with(topic, partition, &storage_engine::get_or_create);
}

result<partition_handle, error_code> service::open_for_read(const meta::resolved_topic& topic, int32_t partition) {
    return open_with(topic, partition, &storage_engine::get_for_read);
}

result<partition_handle, error_code> service::open_with(const meta::resolved_topic& topic, int32_t partition,
                                                        engine_open how) {
    const meta::topic& t = topic.t;
    if (partition < 0 || partition >= t.partition_count) return failure{error_code::unknown_topic_or_partition};
    if (auto s = engine_.get({t.name, partition})) return partition_handle{std::move(s), topic.settings, t.name};
    auto r = (engine_.*how)({t.name, partition}, to_log_config(topic.settings, config_.flush_ms));
    if (!r.ok()) {
        const error_code e = open_error(r.error().code);
        if (e == error_code::unknown_topic_or_partition)
            spdlog::debug("opening log {}-{}: {}", t.name, partition, r.error().message);
        else
            spdlog::error("opening log {}-{}: {}", t.name, partition, r.error().message);
        return failure{e};
    }
    return partition_handle{std::move(*r), topic.settings, t.name};
}

result<log::read_result, error_code> service::read(const partition_handle& p, int64_t offset, uint64_t max_bytes,
                                                   const log::read_options& opts) {
    auto r = p.store->read(offset, max_bytes, opts);
    if (!r.ok()) return failure{read_error(r.error().code)};
    return std::move(*r);
}

offset_answer service::list_offset(const partition_handle& p, int64_t timestamp, bool read_committed) {
    auto& s = *p.store;
    // The offsets as committed, not as last heard: another broker's commit
    // acknowledged before this request is counted (cluster mode).
    if (auto r = s.refresh_offsets(); !r.ok()) {
        spdlog::warn("ListOffsets of {}: {}", p.topic, r.error().message);
        return {.error = error_code::kafka_storage_error};
    }
    // Partition.fetchOffsetForTimestamp: nothing at or past the last fetchable offset.
    const int64_t last_fetchable = read_committed ? s.last_stable_offset() : s.high_watermark();
    offset_answer a;
    auto found = [&](log::log_result<std::optional<log::timestamp_offset>> r) {
        if (!r.ok()) {
            a.error = error_code::kafka_storage_error;
        } else if (*r && (*r)->offset < last_fetchable) {
            a.offset = (*r)->offset;
            a.timestamp = (*r)->timestamp;
            a.leader_epoch = k_leader_epoch;
        }
        return a;
    };
    switch (timestamp) {
        case k_latest_timestamp: return {.offset = last_fetchable, .leader_epoch = k_leader_epoch};
        case k_earliest_timestamp: return {.offset = s.log_start_offset(), .leader_epoch = k_leader_epoch};
        case k_earliest_local_timestamp: return {.offset = s.local_log_start_offset(), .leader_epoch = k_leader_epoch};
        // Nothing is tiered, so nothing is pending upload (UnifiedLog answers no offset).
        case k_earliest_pending_upload_timestamp: return a;
        case k_max_timestamp: return found(s.max_timestamp());
        default: break;
    }
    // Other negative specs (-6 latest tiered, ...) find nothing in a log
    // without tiering: no error, offset -1 (recorded at v11).
    if (timestamp < 0) return a;
    return found(s.offset_for_timestamp(timestamp));
}

result<int64_t, error_code> service::delete_records(const partition_handle& p, int64_t offset) {
    auto& s = *p.store;
    const int64_t hw = s.high_watermark();
    int64_t target = offset == -1 ? hw : offset;
    if (target < 0 || target > hw) return failure{error_code::offset_out_of_range};
    const int64_t before = accounts_.enabled() ? int64_t(s.size_bytes()) : 0;
    auto r = s.delete_records_before(target);
    if (!r.ok()) return failure{read_error(r.error().code)};
    if (accounts_.enabled()) accounts_.add(s, p.topic, int64_t(s.size_bytes()) - before);
    return *r;
}

void service::apply_topic_configs() {
    for (const auto& tp : engine_.partitions()) {
        auto t = topics_.find(tp.topic);
        auto s = engine_.get(tp);
        if (!t || !s) continue;
        s->set_config(to_log_config(t->settings, config_.flush_ms));
    }
}

void service::count_storage() {
    if (!accounts_.enabled()) return;
    accounts_.reset();
    for (const auto& tp : engine_.partitions())
        if (auto s = engine_.get(tp)) accounts_.add(*s, tp.topic, int64_t(s->size_bytes()));
}

void service::apply_topic_settings(const meta::topic& t) {
    auto view = topics_.find(t.name);
    if (!view) return;
    auto cfg = to_log_config(view->settings, config_.flush_ms);
    for (int32_t p = 0; p < t.partition_count; ++p)
        if (auto s = engine_.get({t.name, p})) s->set_config(cfg);
}

void service::remove_topic(const meta::topic& t) {
    std::vector<topic_partition> tps;
    tps.reserve(size_t(t.partition_count));
    for (int32_t p = 0; p < t.partition_count; ++p) {
        tps.push_back({t.name, p});
        if (auto s = engine_.get(tps.back()); s && accounts_.enabled())
            accounts_.add(*s, t.name, -int64_t(s->size_bytes()));
    }
    if (auto st = engine_.remove_all(tps); !st.ok())
        spdlog::error("deleting the logs of {}: {}", t.name, st.error().message);
}

}  // namespace ketch::partition
