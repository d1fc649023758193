// read_committed's rule for the data batches of aborted transactions, as a
// consumer applies a fetch answer's aborted_transactions (Kafka's
// CompletedFetch) and a share group does when it archives them
// (SharePartition.fetchAbortedTransactionRecordBatches, Kafka 4.3.1): a
// producer's transaction counts as aborted from the first offset listed for
// it until its next control batch (the abort marker), and its transactional
// batches in between are skipped.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "record/batch_header.h"

namespace ketch::record {

class aborted_batches {
public:
    aborted_batches() = default;  // nothing aborted (read_uncommitted)
    // (first offset, producer id) of each aborted transaction, in any order.
    explicit aborted_batches(std::vector<std::pair<int64_t, int64_t>> first_offset_and_producer)
        : pending_(std::move(first_offset_and_producer)) {
        std::sort(pending_.begin(), pending_.end());
    }

    // Call for every batch in log order: true for a data batch of an
    // aborted transaction.
    bool skip(const batch_header& h) {
        while (next_ < pending_.size() && pending_[next_].first <= h.last_offset())
            open_.insert(pending_[next_++].second);
        if (h.is_control()) {
            if (h.is_transactional()) open_.erase(h.producer_id);
            return false;
        }
        return h.is_transactional() && open_.count(h.producer_id) != 0;
    }

private:
    std::vector<std::pair<int64_t, int64_t>> pending_;
    size_t next_ = 0;
    std::set<int64_t> open_;
};

}  // namespace ketch::record
