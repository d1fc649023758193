// Producer ids for InitProducerId: unique for the life of a data directory.
// Ids are handed out from blocks (as Kafka's controller hands blocks of 1000
// to brokers); the end of the current block is persisted before any id in it
// is used, so a restart never reuses an id.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace ketch::txn {

class producer_ids {
public:
    static constexpr int64_t k_block = 1000;

    // Reads <dir>/producer_ids (the next unreserved id) or starts at 0.
    explicit producer_ids(std::string dir);
    // Throws std::runtime_error if the reservation cannot be made durable.
    int64_t next();

private:
    void reserve_block();

    std::string path_;
    std::mutex mu_;
    int64_t next_ = 0;
    int64_t reserved_end_ = 0;  // ids below this are reserved on disk
};

}  // namespace ketch::txn
