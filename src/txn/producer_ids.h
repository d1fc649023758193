// Producer ids for InitProducerId: unique for the life of a data directory.
// Ids are handed out from blocks (as Kafka's controller hands blocks of 1000
// to brokers); the end of the current block is persisted before any id in it
// is used, so a restart never reuses an id.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace ketch::txn {

class producer_ids {
public:
    static constexpr int64_t k_block = 1000;

    // Reads <dir>/producer_ids (the next unreserved id) or starts at 0.
    explicit producer_ids(std::string dir);
    // Cluster mode: blocks come from `reserve` (the first id of a fresh block
    // of k_block, unique across brokers; throws std::runtime_error when none
    // can be had), not from the file.
    void set_block_source(std::function<int64_t()> reserve) {
        std::lock_guard lock(mu_);
        source_ = std::move(reserve);
        reserved_end_ = next_;  // the next id comes from a fresh block
    }
    // Throws std::runtime_error if the reservation cannot be made durable.
    int64_t next();

private:
    void reserve_block();

    std::string path_;
    std::mutex mu_;
    int64_t next_ = 0;
    int64_t reserved_end_ = 0;  // ids below this are reserved on disk
    std::function<int64_t()> source_;
};

}  // namespace ketch::txn
