// Recently written and read objects of the shared log, in memory, bounded by
// bytes (least recently used out first). Objects are immutable, so a cached
// body never goes stale. Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ketch::shared {

class object_cache {
public:
    using body = std::shared_ptr<const std::string>;
    explicit object_cache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

    body get(const std::string& key);
    void put(const std::string& key, body b);

private:
    struct entry {
        body b;
        std::list<std::string>::iterator lru;
    };
    const uint64_t max_bytes_;
    std::mutex mu_;
    uint64_t bytes_ = 0;                  // mu_
    std::list<std::string> lru_;          // mu_, most recent first
    std::map<std::string, entry> items_;  // mu_
};

}  // namespace ketch::shared
