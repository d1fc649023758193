// Recently written and read byte ranges ("pieces") of the shared log's
// objects, in memory, bounded by bytes (least recently used out first). A
// piece is an object's bytes [offset, offset + size); a whole object is the
// piece at 0. Objects are immutable, so a cached piece never goes stale.
// Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace ketch::shared {

class object_cache {
public:
    using body = std::shared_ptr<const std::string>;
    // Bytes of an object: they start at b->data() + at.
    struct slice {
        body b;
        size_t at = 0;
    };
    explicit object_cache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

    // A cached piece holding the object's bytes [offset, offset + length).
    std::optional<slice> get(const std::string& key, uint64_t offset, uint64_t length);
    // The piece of `key` starting at `offset` (skipped when larger than the
    // bound or already covered by a cached piece).
    void put(const std::string& key, uint64_t offset, body b);
    uint64_t bytes() const;

private:
    using piece_id = std::pair<std::string, uint64_t>;  // object key, offset
    struct entry {
        body b;
        std::list<piece_id>::iterator lru;
    };
    // A piece of `key` covering [offset, end), or items_.end(); mu_ held.
    std::map<piece_id, entry>::iterator covering(const std::string& key, uint64_t offset, uint64_t end);

    const uint64_t max_bytes_;
    mutable std::mutex mu_;
    uint64_t bytes_ = 0;               // mu_
    std::list<piece_id> lru_;          // mu_, most recent first
    std::map<piece_id, entry> items_;  // mu_
};

}  // namespace ketch::shared
