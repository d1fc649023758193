#include "broker/offsets_topic.h"

#include <spdlog/spdlog.h>

#include "meta/topic_name.h"
#include "partition/service.h"
#include "record/batch_builder.h"

namespace ketch::broker {

namespace {

// A batch stays well under max.message.bytes (1048588 by default).
constexpr size_t k_batch_budget = 512 * 1024;

}  // namespace

meta::create_topic_args offsets_topic_args() {
    meta::create_topic_args a;
    a.name = std::string(meta::consumer_offsets_topic);
    a.partition_count = group::k_offsets_topic_partitions;
    a.replication_factor = 1;  // offsets.topic.replication.factor, capped by the one broker
    a.configs = {{"cleanup.policy", "compact"},
                 {"compression.type", "producer"},
                 {"segment.bytes", std::to_string(group::k_offsets_topic_segment_bytes)}};
    return a;
}

offsets_topic::offsets_topic(meta::offset_store& inner, meta::topic_registry& topics, partition::service& partitions)
    : inner_(inner), topics_(topics), partitions_(partitions) {}

void offsets_topic::open() {
    std::lock_guard lock(mu_);
    bool exists = topics_.find(meta::consumer_offsets_topic) != nullptr;
    if (!exists) {
        auto offsets = inner_.load_offsets();
        auto groups = inner_.load_groups();
        if (offsets.ok() && groups.ok() && offsets->empty() && groups->empty()) return;  // created when first used
    }
    (void)topic_locked(true, nullptr);
}

void offsets_topic::ensure() {
    if (topics_.find(meta::consumer_offsets_topic)) return;
    std::lock_guard lock(mu_);
    (void)topic_locked(true, nullptr);
}

std::shared_ptr<const meta::resolved_topic> offsets_topic::topic_locked(bool create, bool* reconciled) {
    auto t = topics_.find(meta::consumer_offsets_topic);
    if (!t && create) {
        auto made = topics_.create_topic(offsets_topic_args());
        if (made.ok()) spdlog::info("created internal topic {} ({} partitions)", made->name, made->partition_count);
        t = topics_.find(meta::consumer_offsets_topic);
    }
    if (!t) return nullptr;
    if (dirty_ || t->t.id != synced_id_) {
        if (!reconcile_locked(*t)) return nullptr;
        synced_id_ = t->t.id;
        dirty_ = false;
        if (reconciled) *reconciled = true;
    }
    return t;
}

bool offsets_topic::append_locked(const meta::resolved_topic& t, std::vector<keyed> records) {
    std::map<int32_t, std::vector<group::offsets_record>> by_partition;
    for (auto& [p, r] : records) by_partition[p].push_back(std::move(r));
    const int64_t now = partitions_.now_ms();
    bool ok = true;
    for (auto& [p, recs] : by_partition) {
        size_t i = 0;
        while (i < recs.size()) {
            record::batch_builder b({});
            size_t size = 0;
            for (; i < recs.size() && (b.size() == 0 || size < k_batch_budget); ++i) {
                size += recs[i].key.size() + (recs[i].value ? recs[i].value->size() : 0);
                b.add({.key = std::move(recs[i].key), .value = std::move(recs[i].value), .timestamp = now});
            }
            auto batch = b.build();
            auto out = batch.ok() ? partitions_.append(t, p, *batch, true) : partition::append_outcome{};
            if (!batch.ok() || out.error != error_code::none) {
                spdlog::warn(
                    "{}-{}: cannot append group records (error {}); the topic is rebuilt from the store "
                    "on its next write",
                    t.t.name, p, int(out.error));
                ok = false;
            }
        }
    }
    return ok;
}

void offsets_topic::write_locked(std::vector<keyed> records) {
    bool reconciled = false;
    auto t = topic_locked(true, &reconciled);
    if (!t) {
        dirty_ = true;
        return;
    }
    if (reconciled) return;  // the store already held this change, so the reconcile wrote it
    if (!append_locked(*t, std::move(records))) dirty_ = true;
}

result<std::vector<meta::stored_offset>, meta::store_error> offsets_topic::load_offsets() {
    return inner_.load_offsets();
}

result<std::vector<meta::stored_group>, meta::store_error> offsets_topic::load_groups() { return inner_.load_groups(); }

status<meta::store_error> offsets_topic::commit_offsets(std::span<const meta::stored_offset> offsets) {
    std::lock_guard lock(mu_);
    auto s = inner_.commit_offsets(offsets);
    if (!s.ok()) return s;
    std::vector<keyed> out;
    for (const auto& o : offsets) {
        offsets_of_[o.group].insert({o.topic, o.partition});
        out.push_back({group::offsets_partition_for(o.group),
                       {group::offset_commit_key(o.group, o.topic, o.partition), group::offset_commit_value(o)}});
    }
    write_locked(std::move(out));
    return s;
}

status<meta::store_error> offsets_topic::delete_offsets(const std::string& group,
                                                        std::span<const meta::offset_key> keys) {
    std::lock_guard lock(mu_);
    auto s = inner_.delete_offsets(group, keys);
    if (!s.ok()) return s;
    std::vector<keyed> out;
    auto& live = offsets_of_[group];
    for (const auto& k : keys)
        if (live.erase({k.topic, k.partition}))
            out.push_back({group::offsets_partition_for(group),
                           {group::offset_commit_key(group, k.topic, k.partition), std::nullopt}});
    if (live.empty()) offsets_of_.erase(group);
    if (!out.empty()) write_locked(std::move(out));
    return s;
}

status<meta::store_error> offsets_topic::delete_groups(std::span<const std::string> groups) {
    std::lock_guard lock(mu_);
    auto s = inner_.delete_groups(groups);
    if (!s.ok()) return s;
    // GroupMetadataManager.deleteGroups: a tombstone for every offset, then the group's.
    std::vector<keyed> out;
    for (const auto& g : groups) {
        int32_t p = group::offsets_partition_for(g);
        if (auto it = offsets_of_.find(g); it != offsets_of_.end()) {
            for (const auto& [topic, partition] : it->second)
                out.push_back({p, {group::offset_commit_key(g, topic, partition), std::nullopt}});
            offsets_of_.erase(it);
        }
        if (generation_of_.erase(g)) out.push_back({p, {group::group_metadata_key(g), std::nullopt}});
    }
    if (!out.empty()) write_locked(std::move(out));
    return s;
}

status<meta::store_error> offsets_topic::put_group(const meta::stored_group& g) {
    std::lock_guard lock(mu_);
    auto s = inner_.put_group(g);
    if (!s.ok()) return s;
    auto it = generation_of_.find(g.group);
    if (it != generation_of_.end() && it->second > g.generation) return s;  // the store kept the newer row
    auto value = group::group_metadata_value(g);
    if (!value) return s;
    generation_of_[g.group] = g.generation;
    write_locked({{group::offsets_partition_for(g.group), {group::group_metadata_key(g.group), std::move(value)}}});
    return s;
}

}  // namespace ketch::broker
