#include "shared/object_cache.h"

namespace ketch::shared {

std::map<object_cache::piece_id, object_cache::entry>::iterator object_cache::covering(const std::string& key,
                                                                                       uint64_t offset, uint64_t end) {
    // Pieces of one object are few (a handful of ranges): walk back from the
    // last piece starting at or before `offset`.
    auto it = items_.upper_bound(piece_id{key, offset});
    while (it != items_.begin()) {
        --it;
        if (it->first.first != key) break;
        if (it->first.second + it->second.b->size() >= end) return it;
    }
    return items_.end();
}

std::optional<object_cache::slice> object_cache::get(const std::string& key, uint64_t offset, uint64_t length) {
    std::lock_guard l(mu_);
    auto it = covering(key, offset, offset + length);
    if (it == items_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return slice{it->second.b, size_t(offset - it->first.second)};
}

void object_cache::put(const std::string& key, uint64_t offset, body b) {
    if (!b || b->empty() || b->size() > max_bytes_) return;
    std::lock_guard l(mu_);
    if (covering(key, offset, offset + b->size()) != items_.end()) return;
    piece_id id{key, offset};
    if (auto old = items_.find(id); old != items_.end()) {  // a shorter piece at the same offset
        bytes_ -= old->second.b->size();
        lru_.erase(old->second.lru);
        items_.erase(old);
    }
    lru_.push_front(id);
    bytes_ += b->size();
    items_.emplace(std::move(id), entry{std::move(b), lru_.begin()});
    while (bytes_ > max_bytes_ && !lru_.empty()) {
        auto victim = items_.find(lru_.back());
        bytes_ -= victim->second.b->size();
        items_.erase(victim);
        lru_.pop_back();
    }
}

uint64_t object_cache::bytes() const {
    std::lock_guard l(mu_);
    return bytes_;
}

}  // namespace ketch::shared
