// The transaction coordinator's marker_writer on this broker: markers go to
// the partition logs, transactional offsets to the group coordinator.
#pragma once

#include <functional>

#include "broker/broker_context.h"
#include "txn/marker_writer.h"

namespace ketch::broker {

class txn_markers final : public txn::marker_writer {
public:
    explicit txn_markers(broker_context& b) : b_(b) {}

    std::vector<error_code> write_markers(const std::vector<txn::topic_partition>& tps, int64_t producer_id,
                                          int16_t producer_epoch, bool commit, int32_t coordinator_epoch) override;
    bool complete_txn_offsets(int64_t producer_id, bool commit) override;
    // Cluster mode: completes the producer's pending offsets in the shared
    // store (every broker's groups hear of it); the local group coordinator's
    // answer no longer decides then (the group may be coordinated elsewhere).
    void set_shared_offsets(std::function<bool(int64_t producer_id, bool commit)> fn) { shared_ = std::move(fn); }

private:
    broker_context& b_;
    std::function<bool(int64_t, bool)> shared_;
};

}  // namespace ketch::broker
