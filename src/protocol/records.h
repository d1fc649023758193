// The `records` field of Produce / Fetch and friends: a run of record batches.
//
// Decoded requests hold it as a zero-copy slice of the request frame. Encoded
// responses may instead hold file ranges (`file_chunk`) that the network layer
// sends with sendfile(2). On the response path the protocol layer never reads
// a file: a chunk is opaque here except for its length; flatten() (tests and
// tools) reads one with pread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/bytes.h"

namespace ketch::kafka {

struct file_chunk {
    int fd = -1;           // open file descriptor, kept alive by `owner`
    int64_t position = 0;  // byte position in the file
    uint32_t length = 0;
    std::shared_ptr<const void> owner;
    // Where the file's data ends (its segment's size when the chunk was
    // read: bytes past it are not yet published, or never will be); -1 not
    // known. The network layer reads ahead no further (net/page_in.h).
    int64_t file_end = -1;
};

struct records {
    // Either in-memory bytes, or (for reads served from the log) file chunks.
    shared_bytes data;
    std::vector<file_chunk> chunks;

    records() = default;
    explicit records(shared_bytes b) : data(std::move(b)) {}

    size_t size() const {
        size_t n = data.size();
        for (auto& c : chunks) n += c.length;
        return n;
    }
    bool empty() const { return size() == 0; }
    // Contents as one contiguous byte string (reads chunks with pread).
    bytes flatten() const;

    friend bool operator==(const records& a, const records& b) { return a.flatten() == b.flatten(); }
};

}  // namespace ketch::kafka
