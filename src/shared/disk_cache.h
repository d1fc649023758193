// The object cache's second level (--cluster-cache-dir, off by default):
// pieces of objects (object_cache.h) in files of one local directory,
// bounded by bytes (least recently used out first; the order survives a
// restart through the files' modification times). Content addressed: a
// file's name is a hash of the object store's location and the object's
// key, with the piece's offset and length, and objects are immutable, so a
// file is never stale and a restarted broker reads what it finds. Each file
// carries the CRC-32C and length of its bytes: a corrupt or truncated file is
// removed and counts as a miss (the caller GETs the bytes again). Files are
// written under a temporary name and renamed. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "base/result.h"
#include "shared/object_cache.h"

namespace ketch::shared {

class disk_cache {
public:
    // `space` names the object store (endpoint, bucket, prefix): another
    // store's objects never match. Creates the directory, removes left-over
    // temporary files, and evicts down to the bound.
    static result<std::unique_ptr<disk_cache>, std::string> open(std::filesystem::path dir, uint64_t max_bytes,
                                                                 std::string space);

    // A cached piece holding [offset, offset + length) of `key`, as a slice.
    std::optional<object_cache::slice> get(const std::string& key, uint64_t offset, uint64_t length,
                                           uint64_t* piece_offset);
    void put(const std::string& key, uint64_t offset, const std::string& bytes);
    uint64_t bytes() const;

    static constexpr size_t k_header = 16;  // "KCP1", CRC-32C (LE), length (LE u64)

private:
    disk_cache(std::filesystem::path dir, uint64_t max_bytes, std::string space)
        : dir_(std::move(dir)), max_bytes_(max_bytes), space_(std::move(space)) {}
    using piece_id = std::pair<std::string, uint64_t>;  // key hash, offset
    struct entry {
        uint64_t length = 0;
        std::list<piece_id>::iterator lru;
    };
    std::string hash(const std::string& key) const;
    std::filesystem::path file_of(const piece_id& id, uint64_t length) const;
    void add(piece_id id, uint64_t length);  // mu_ held; evicts to the bound
    void drop(const piece_id& id);           // mu_ held; removes the file

    const std::filesystem::path dir_;
    const uint64_t max_bytes_;
    const std::string space_;
    mutable std::mutex mu_;
    uint64_t bytes_ = 0;               // mu_, files' sizes
    std::list<piece_id> lru_;          // mu_, most recent first
    std::map<piece_id, entry> items_;  // mu_
    uint64_t next_tmp_ = 0;            // mu_
};

}  // namespace ketch::shared
