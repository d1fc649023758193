#include "shared/object_cache.h"

namespace ketch::shared {

object_cache::body object_cache::get(const std::string& key) {
    std::lock_guard l(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second.b;
}

void object_cache::put(const std::string& key, body b) {
    if (!b || b->size() > max_bytes_) return;
    std::lock_guard l(mu_);
    if (items_.contains(key)) return;
    lru_.push_front(key);
    bytes_ += b->size();
    items_.emplace(key, entry{std::move(b), lru_.begin()});
    while (bytes_ > max_bytes_ && !lru_.empty()) {
        auto victim = items_.find(lru_.back());
        bytes_ -= victim->second.b->size();
        items_.erase(victim);
        lru_.pop_back();
    }
}

}  // namespace ketch::shared
