// How fetches read the shared log's objects (docs/design/cluster.md, "the
// fetch path"): the byte ranges one read needs, through the memory cache,
// the optional disk cache and ranged GETs:
// - ranges of one object that are close (at most `coalesce_gap` apart) are
//   read with one ranged GET of the span that holds them;
// - an object no larger than `whole_below` is read whole (one GET serves
//   every partition's batches in it, and the next fetches of any of them);
// - concurrent reads of a span share one GET: a read whose span lies inside
//   one in flight waits for it instead of asking again;
// - what a GET brings is put in the memory cache (bounded) and the disk cache.
// Thread-safe (the fetch pool's threads share one reader).
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "objstore/s3_client.h"
#include "shared/disk_cache.h"
#include "shared/object_cache.h"

namespace ketch::shared {

struct read_policy {
    uint64_t whole_below = 2ull << 20;     // --cluster-read-whole-bytes: objects up to this are read whole
    uint64_t coalesce_gap = 256ull << 10;  // ranges of one object this close share a GET
};

struct wanted_range {
    std::string key;
    uint64_t offset = 0;
    uint64_t length = 0;
    uint64_t object_size = 0;  // 0: unknown (read by ranges)
};

class object_reader {
public:
    object_reader(object_cache& memory, disk_cache* disk, read_policy p) : memory_(memory), disk_(disk), policy_(p) {}

    // The bytes of each wanted range, in order, or why not ("GET key: ...").
    result<std::vector<object_cache::slice>, std::string> read(objstore::s3_client& s3,
                                                               const std::vector<wanted_range>& wanted);
    // Reads waiting now for another read's GET (tests/cluster/object_reader_check.cc).
    int waiting() const { return waiting_.load(); }

private:
    struct piece {
        object_cache::body b;
        uint64_t offset = 0;  // of b's first byte in the object
    };
    using piece_result = result<piece, std::string>;
    struct flight {
        uint64_t offset, end;
        std::promise<piece_result> done;
        std::shared_future<piece_result> wait;
    };
    // [offset, end) of `key`, from the caches, a GET in flight or a GET of its own.
    result<object_cache::slice, std::string> fetch(objstore::s3_client& s3, const std::string& key, uint64_t offset,
                                                   uint64_t end, bool whole);
    piece_result load(objstore::s3_client& s3, const std::string& key, uint64_t offset, uint64_t end, bool whole);

    object_cache& memory_;
    disk_cache* const disk_;
    const read_policy policy_;
    std::atomic<int> waiting_{0};
    std::mutex mu_;
    std::map<std::string, std::vector<std::shared_ptr<flight>>> flights_;  // mu_, by object key
};

}  // namespace ketch::shared
