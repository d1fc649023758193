// offsets_topic::reconcile_locked: makes __consumer_offsets exact against the
// offset store (see offsets_topic.h).
#include <spdlog/spdlog.h>

#include "broker/offsets_topic.h"
#include "log/partition_log.h"
#include "partition/service.h"
#include "record/record_reader.h"

namespace ketch::broker {

namespace {

// Key bytes -> the last value the partition holds for it (nullopt: a tombstone).
using partition_state = std::map<bytes, std::optional<bytes>>;

// Applies every record of the batches in `data` to `state`; the offset after
// the last batch read, or -1 when `data` holds no whole batch.
int64_t apply_batches(byte_view data, partition_state& state) {
    int64_t next = -1;
    while (auto h = record::parse_batch_header(data)) {
        if (h->total_size() > data.size()) break;
        byte_view batch = data.first(h->total_size());
        data = data.subspan(h->total_size());
        next = h->last_offset() + 1;
        if (h->is_control()) continue;
        auto reader = record::record_reader::open(batch);
        if (!reader.ok()) continue;
        record::record_view r;
        for (auto more = reader->next(r); more.ok() && *more; more = reader->next(r)) {
            if (!r.key) continue;
            bytes key(r.key->begin(), r.key->end());
            state[std::move(key)] =
                r.value ? std::optional<bytes>(bytes(r.value->begin(), r.value->end())) : std::nullopt;
        }
    }
    return next;
}

// What partition `p` of the topic holds; nullopt if it cannot be read.
std::optional<partition_state> read_partition(partition::service& partitions, const std::string& topic, int32_t p) {
    partition_state state;
    auto store = partitions.find(topic, p);
    if (!store) return state;
    int64_t offset = store->log_start_offset();
    while (offset < store->high_watermark()) {
        auto r = store->read(offset, 1 << 20, {});
        if (!r.ok()) return std::nullopt;
        auto data = log::read_bytes(*r);
        if (!data.ok()) return std::nullopt;
        int64_t next = apply_batches(*data, state);
        if (next <= offset) break;
        offset = next;
    }
    return state;
}

}  // namespace

bool offsets_topic::reconcile_locked(const meta::resolved_topic& t) {
    auto offsets = inner_.load_offsets();
    auto groups = inner_.load_groups();
    if (!offsets.ok() || !groups.ok()) {
        spdlog::warn("{}: cannot read the offset store to rebuild it", t.t.name);
        return false;
    }
    offsets_of_.clear();
    generation_of_.clear();
    std::map<int32_t, partition_state> want;  // partition -> key -> value
    for (const auto& o : *offsets) {
        offsets_of_[o.group].insert({o.topic, o.partition});
        want[group::offsets_partition_for(o.group)][group::offset_commit_key(o.group, o.topic, o.partition)] =
            group::offset_commit_value(o);
    }
    for (const auto& g : *groups) {
        auto value = group::group_metadata_value(g);
        if (!value) continue;
        generation_of_[g.group] = g.generation;
        want[group::offsets_partition_for(g.group)][group::group_metadata_key(g.group)] = std::move(value);
    }
    std::vector<keyed> missing;
    for (int32_t p = 0; p < t.t.partition_count; ++p) {
        auto have = read_partition(partitions_, t.t.name, p);
        if (!have) {
            spdlog::warn("{}-{}: cannot read it to rebuild it", t.t.name, p);
            return false;
        }
        auto& w = want[p];
        for (auto& [key, value] : w)
            if (auto it = have->find(key); it == have->end() || it->second != value)
                missing.push_back({p, {key, value}});
        for (auto& [key, value] : *have)
            if (value && !w.contains(key)) missing.push_back({p, {key, std::nullopt}});
    }
    if (missing.empty()) return true;
    spdlog::info("{}: {} records appended to match the offset store", t.t.name, missing.size());
    return append_locked(t, std::move(missing));
}

}  // namespace ketch::broker
