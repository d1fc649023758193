// What a consumer group's heartbeat derives from the cluster's topics: the
// topics each member subscribes to (by name and by regex), the group's
// subscription metadata (whose change bumps the group epoch) and the target
// assignment from the group's assignor.
//
// Regular expressions: Kafka matches subscribed_topic_regex with RE2J
// (Pattern.matcher(topic).matches(): the whole name). ketch uses Google's RE2,
// whose syntax RE2J implements, also matching the whole name: backreferences
// and lookaround are refused, inline flags such as (?i) and \p{..} classes
// accepted, as in Kafka (INVALID_REGULAR_EXPRESSION for what does not compile).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "group/assignor.h"
#include "group/consumer_group.h"

namespace re2 {
class RE2;
}

namespace ketch::group {

using topic_index = std::map<std::string, topic_meta>;  // by name

// Compiled regexes by their source, compiled once. Not thread-safe.
class regex_cache {
public:
    // False (and why) when `pattern` is not a valid regular expression.
    bool compile(const std::string& pattern, std::string& why);
    // Whether `name` matches `pattern` as a whole; false for an invalid pattern.
    bool matches(const std::string& pattern, const std::string& name);

private:
    std::map<std::string, std::shared_ptr<const re2::RE2>> compiled_;
};

// The existing topics the member subscribes to, by name or through its regex.
std::set<std::string> member_topic_names(const consumer_member& m, const topic_index& topics, regex_cache& rx);
std::set<uuid> member_topic_ids(const consumer_member& m, const topic_index& topics, regex_cache& rx);

// Recomputes the group's subscription metadata (each subscribed topic that
// exists, with its id and partition count); true if it changed.
bool refresh_subscription_metadata(consumer_group& g, const topic_index& topics, regex_cache& rx);

// Runs the group's assignor (its members' preferred one, else "uniform") over
// every member and makes the result the target at the group epoch, computed
// at `now_ms`.
void compute_target_assignment(consumer_group& g, const topic_index& topics, regex_cache& rx, int64_t now_ms);

// GroupMetadataManager.canComputeNextTargetAssignment (Kafka 4.3.1,
// group.consumer.assignment.interval.ms): a new target may be computed when
// the last one's time is unknown (0), when the interval is 0, or once the
// interval has passed since the last one was computed.
bool can_compute_next_target(int64_t last_computed_ms, int32_t interval_ms, int64_t now_ms);

// GroupMetadataManager.maybeUpdateTargetAssignment: when the group epoch is
// ahead of the target's and the interval allows, computes the next target
// (true). Otherwise the target stays: members keep reconciling towards the
// last computed one, and a later heartbeat or JoinGroup computes it.
bool maybe_update_target_assignment(consumer_group& g, const topic_index& topics, regex_cache& rx, int32_t interval_ms,
                                    int64_t now_ms);

// The member-update step of a consumer group heartbeat and of a classic
// member's JoinGroup (GroupMetadataManager consumerGroupHeartbeat /
// classicGroupJoinToConsumerGroup):
//   1. store_member: stores `upd`, refreshes the subscription metadata and
//      bumps the group epoch when `subscription_changed` or the metadata did;
//   2. maybe_update_target_assignment (above);
//   3. reconcile_member: reconciles the member towards its target given what
//      it reports owning (current_assignment.h); stores the next state when
//      it differs and returns it.
// update_member_step runs the three; a JoinGroup that may downgrade the group
// between 1 and 2 runs them one by one.
void store_member(consumer_group& g, const consumer_member& upd, bool subscription_changed, const topic_index& topics,
                  regex_cache& rx);
consumer_member reconcile_member(consumer_group& g, const consumer_member& upd,
                                 const std::optional<topic_partitions>& owned, const topic_index& topics,
                                 regex_cache& rx);
consumer_member update_member_step(consumer_group& g, const consumer_member& upd, bool subscription_changed,
                                   const std::optional<topic_partitions>& owned, const topic_index& topics,
                                   regex_cache& rx, int32_t interval_ms, int64_t now_ms);

}  // namespace ketch::group
