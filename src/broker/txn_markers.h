// The transaction coordinator's marker_writer on this broker: markers go to
// the partition logs, transactional offsets to the group coordinator.
#pragma once

#include "broker/broker_context.h"
#include "txn/marker_writer.h"

namespace ketch::broker {

class txn_markers final : public txn::marker_writer {
public:
    explicit txn_markers(broker_context& b) : b_(b) {}

    std::vector<error_code> write_markers(const std::vector<txn::topic_partition>& tps, int64_t producer_id,
                                          int16_t producer_epoch, bool commit, int32_t coordinator_epoch) override;
    bool complete_txn_offsets(int64_t producer_id, bool commit) override;

private:
    broker_context& b_;
};

}  // namespace ketch::broker
