// A member of a consumer group in the KIP-848 protocol (group.protocol=consumer,
// ConsumerGroupHeartbeat), for `ketch consume -g --group-protocol consumer`:
// the broker assigns (its default assignor); the member generates its own id
// (KIP-1082, ConsumerGroupHeartbeat v1), reports the partitions it owns, takes
// a changed assignment after committing what it read, and rejoins at epoch 0
// when fenced. Behaviour reference, Apache Kafka 4.3.1: clients/.../consumer/
// internals/ConsumerMembershipManager.java and AbstractMembershipManager.java.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "cli/group_member.h"

namespace ketch::cli {

class consumer_member final : public group_membership {
public:
    consumer_member(client& c, std::string group, std::vector<std::string> topics);

    std::vector<topic_partition> join() override;
    bool heartbeat_if_due() override;
    void commit(const std::map<topic_partition, int64_t>& offsets) override;
    void leave() override;

    int32_t member_epoch() const { return epoch_; }

private:
    // One ConsumerGroupHeartbeat; a new assignment lands in pending_. False
    // when the member was fenced (it must join again at epoch 0).
    bool beat(bool joining);
    std::vector<topic_partition> names_of(const std::vector<std::pair<uuid, std::vector<int32_t>>>& parts);

    client& c_;
    std::string group_;
    std::vector<std::string> topics_;
    std::string member_id_;
    int32_t epoch_ = 0;
    std::vector<topic_partition> owned_;
    std::optional<std::vector<topic_partition>> pending_;
    std::map<uuid, std::string> topic_names_;
    std::chrono::milliseconds interval_{3000};
    std::chrono::steady_clock::time_point next_heartbeat_;
};

}  // namespace ketch::cli
