#include "meta/memory_offset_store.h"

namespace ketch::meta {

namespace {
store_error injected() { return store_error{"injected offset store failure"}; }
}  // namespace

result<std::vector<stored_offset>, store_error> memory_offset_store::load_offsets() {
    std::lock_guard lock(mu_);
    std::vector<stored_offset> out;
    for (const auto& [k, v] : offsets_) out.push_back(v);
    return out;
}

result<std::vector<stored_group>, store_error> memory_offset_store::load_groups() {
    std::lock_guard lock(mu_);
    std::vector<stored_group> out;
    for (const auto& [k, v] : groups_) out.push_back(v);
    return out;
}

status<store_error> memory_offset_store::commit_offsets(std::span<const stored_offset> offsets) {
    if (failing_) return failure{injected()};
    std::lock_guard lock(mu_);
    for (const auto& o : offsets) offsets_[key{o.group, o.topic, o.partition}] = o;
    ++writes_;
    return ok_v;
}

status<store_error> memory_offset_store::delete_offsets(const std::string& group, std::span<const offset_key> keys) {
    if (failing_) return failure{injected()};
    std::lock_guard lock(mu_);
    for (const auto& k : keys) offsets_.erase(key{group, k.topic, k.partition});
    ++writes_;
    return ok_v;
}

status<store_error> memory_offset_store::delete_groups(std::span<const std::string> groups) {
    if (failing_) return failure{injected()};
    std::lock_guard lock(mu_);
    for (const auto& g : groups) {
        groups_.erase(g);
        std::erase_if(offsets_, [&](const auto& e) { return std::get<0>(e.first) == g; });
    }
    ++writes_;
    return ok_v;
}

status<store_error> memory_offset_store::put_group(const stored_group& g) {
    if (failing_) return failure{injected()};
    std::lock_guard lock(mu_);
    auto it = groups_.find(g.group);
    if (it == groups_.end() || g.generation >= it->second.generation) groups_[g.group] = g;
    ++writes_;
    return ok_v;
}

}  // namespace ketch::meta
