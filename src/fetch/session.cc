#include "fetch/session.h"

#include <limits>

namespace ketch::fetch {

int32_t next_epoch(int32_t prev) {
    if (prev < 0) return k_final_epoch;
    if (prev == std::numeric_limits<int32_t>::max()) return 1;
    return prev + 1;
}

size_t partition_key_hash::operator()(const partition_key& k) const {
    size_t h = std::hash<int32_t>{}(k.partition) * 31;
    if (k.topic_id.is_zero()) return h ^ std::hash<std::string>{}(k.topic);
    uint64_t a = 0, b = 0;
    for (int i = 0; i < 8; ++i) a = (a << 8) | k.topic_id.b[i];
    for (int i = 8; i < 16; ++i) b = (b << 8) | k.topic_id.b[i];
    return h ^ std::hash<uint64_t>{}(a ^ (b * 0x9e3779b97f4a7c15ULL));
}

bool cached_partition::must_respond(const partition_outcome& o, bool update) {
    bool must = o.records_bytes > 0;
    if (high_watermark != o.high_watermark) {
        must = true;
        if (update) high_watermark = o.high_watermark;
    }
    if (local_log_start_offset != o.log_start_offset) {
        must = true;
        if (update) local_log_start_offset = o.log_start_offset;
    }
    if (o.preferred_read_replica) must = true;
    if (o.error_code != 0) {
        if (update) high_watermark = -1;
        must = true;
    }
    if (o.diverging_epoch) must = true;
    return must;
}

session::session(int32_t id, bool privileged, bool uses_topic_ids, int64_t now_ms, std::vector<cached_partition> parts)
    : id_(id),
      privileged_(privileged),
      uses_topic_ids_(uses_topic_ids),
      creation_ms_(now_ms),
      last_used_ms_(now_ms),
      epoch_(next_epoch(k_initial_epoch)) {
    index_.reserve(parts.size());
    for (auto& p : parts) {
        if (index_.contains(p.key)) continue;
        auto it = parts_.insert(parts_.end(), std::move(p));
        index_.emplace(it->key, it);
    }
}

session::update_counts session::update(const std::vector<fetch_partition>& data,
                                       const std::vector<partition_key>& forget) {
    update_counts n;
    for (auto& d : data) {
        if (auto it = index_.find(d.key); it != index_.end()) {
            it->second->params = d.params;
            ++n.updated;
        } else {
            auto pos = parts_.insert(parts_.end(), cached_partition{d.key, d.params});
            index_.emplace(pos->key, pos);
            ++n.added;
        }
    }
    for (auto& k : forget) {
        if (auto it = index_.find(k); it != index_.end()) {
            parts_.erase(it->second);
            index_.erase(it);
            ++n.removed;
        }
    }
    return n;
}

std::vector<fetch_partition> session::partitions(const std::function<std::string(const uuid&)>& name_of) {
    std::vector<fetch_partition> out;
    out.reserve(parts_.size());
    for (auto& p : parts_) {
        if (uses_topic_ids_ && p.key.topic.empty() && name_of) p.key.topic = name_of(p.key.topic_id);
        out.push_back({p.key, p.params});
    }
    return out;
}

cached_partition* session::find(const partition_key& k) {
    auto it = index_.find(k);
    return it == index_.end() ? nullptr : &*it->second;
}

void session::move_to_end(const partition_key& k) {
    auto it = index_.find(k);
    if (it != index_.end()) parts_.splice(parts_.end(), parts_, it->second);
}

}  // namespace ketch::fetch
