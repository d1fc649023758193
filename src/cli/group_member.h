// A member of a classic consumer group (JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup), for `ketch consume -g`: protocol type "consumer", the "range"
// assignor (Kafka's RangeAssignor: per topic, partitions split in order over
// the members subscribed to it, the first members taking one more), the leader
// computing the assignment as the Java consumer's leader does.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "cli/client.h"
#include "cli/group_offsets.h"

namespace ketch::cli {

// ConsumerProtocolSubscription / ConsumerProtocolAssignment, version 0.
bytes encode_subscription(const std::vector<std::string>& topics);
std::vector<std::string> decode_subscription(byte_view b);  // throws kafka::decode_error
bytes encode_assignment(const std::vector<topic_partition>& parts);
std::vector<topic_partition> decode_assignment(byte_view b);  // throws kafka::decode_error

// member id -> its partitions. Members are taken in member-id order.
std::map<std::string, std::vector<topic_partition>> range_assign(
    const std::map<std::string, std::vector<std::string>>& subscriptions,
    const std::map<std::string, int32_t>& partitions);

// What `ketch consume -g` needs of its membership, in either protocol.
class group_membership {
public:
    virtual ~group_membership() = default;
    // Joins (again) and returns this member's partitions.
    virtual std::vector<topic_partition> join() = 0;
    // A heartbeat when one is due; false when the member's partitions change
    // (commit what was read, then join() again for the new ones).
    virtual bool heartbeat_if_due() = 0;
    virtual void commit(const std::map<topic_partition, int64_t>& offsets) = 0;
    virtual void leave() = 0;
};

// The classic protocol (group.protocol=classic).
class group_member final : public group_membership {
public:
    group_member(client& c, std::string group, std::vector<std::string> topics);

    std::vector<topic_partition> join() override;
    bool heartbeat_if_due() override;
    void commit(const std::map<topic_partition, int64_t>& offsets) override;
    void leave() override;

    const std::string& member_id() const { return member_id_; }
    int32_t generation() const { return generation_; }

private:
    client& c_;
    std::string group_;
    std::vector<std::string> topics_;
    std::string member_id_;
    int32_t generation_ = -1;
    std::chrono::steady_clock::time_point next_heartbeat_;
};

}  // namespace ketch::cli
