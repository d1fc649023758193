// A streams group's target assignment and when it is computed
// (GroupMetadataManager.maybeUpdateStreamsTargetAssignment and
// computeDelayedTargetAssignment, Apache Kafka 4.3.1), and the group's
// streams.* settings (its GROUP config resource over the broker's group.streams.*):
//   - a join on an empty group starts the initial rebalance delay
//     (streams.initial.rebalance.delay.ms, 3000): until it ends, every
//     member's target is empty at the assignment epoch and the answer says
//     ASSIGNMENT_DELAYED; at its end the target is computed for everyone;
//   - afterwards a group epoch above the assignment epoch computes a new
//     target, unless the last one is younger than
//     streams.assignment.interval.ms (1000): then the members keep
//     reconciling towards the last one and are told ASSIGNMENT_DELAYED.
#include "group/consumer_util.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"
#include "group/streams_assignor.h"

namespace ketch::group {

// StreamsGroup.initialRebalanceTimeoutKey
std::string streams_initial_delay_key(const std::string& group_id) { return "initial-rebalance-timeout-" + group_id; }

int32_t group_slot::streams_session_timeout_ms() const {
    return overrides_ && overrides_->streams_session_timeout_ms ? *overrides_->streams_session_timeout_ms
                                                                : config_.streams_session_timeout_ms;
}
int32_t group_slot::streams_heartbeat_interval_ms() const {
    return overrides_ && overrides_->streams_heartbeat_interval_ms ? *overrides_->streams_heartbeat_interval_ms
                                                                   : config_.streams_heartbeat_interval_ms;
}
int32_t group_slot::streams_num_standby_replicas() const {
    return overrides_ && overrides_->streams_num_standby_replicas ? *overrides_->streams_num_standby_replicas
                                                                  : config_.streams_num_standby_replicas;
}
int32_t group_slot::streams_initial_rebalance_delay_ms() const {
    return overrides_ && overrides_->streams_initial_rebalance_delay_ms
               ? *overrides_->streams_initial_rebalance_delay_ms
               : config_.streams_initial_rebalance_delay_ms;
}
int32_t group_slot::streams_assignment_interval_ms() const {
    return overrides_ && overrides_->streams_assignment_interval_ms ? *overrides_->streams_assignment_interval_ms
                                                                    : config_.streams_assignment_interval_ms;
}

// Called before a joining member is added: an empty group starts the delay
// unless it runs already (timer.scheduleIfAbsent).
void group_slot::maybe_start_streams_initial_delay(streams_group& g) {
    if (!g.empty()) return;
    const int32_t delay = streams_initial_rebalance_delay_ms();
    const auto key = streams_initial_delay_key(g.id());
    if (delay <= 0 || timers_.count(key)) return;
    schedule_timer(key, delay, [this, group_id = g.id()](completions& out) REQUIRES(mu_) {
        compute_delayed_streams_target(group_id, out);
    });
}

// computeDelayedTargetAssignment: nothing for a group that emptied meanwhile,
// whose epoch is not ahead (Kafka fails the timer's operation then) or whose
// topology was never configured.
void group_slot::compute_delayed_streams_target(const std::string& group_id, completions& out) {
    auto* g = find_streams(group_id);
    if (!g || g->empty() || g->group_epoch <= g->assignment_epoch || !g->configured) return;
    compute_streams_target(*g);
    persist_streams(*g, out);
}

std::pair<int32_t, tasks_tuple> group_slot::streams_target_for(streams_group& g, const std::string& member_id,
                                                               std::vector<streams_status>& status) {
    if (timers_.count(streams_initial_delay_key(g.id()))) {
        status.push_back({streams_status_code::assignment_delayed,
                          "Assignment delayed due to the configured initial rebalance delay."});
        return {g.assignment_epoch, tasks_tuple{}};
    }
    if (g.assignment_epoch < g.group_epoch) {
        if (!can_compute_next_target(g.assignment_timestamp_ms, streams_assignment_interval_ms(), clock_.now_ms()))
            status.push_back({streams_status_code::assignment_delayed,
                              "Assignment delayed due to the configured assignment interval."});
        else
            compute_streams_target(g);
    }
    return {g.assignment_epoch, g.target_of(member_id)};
}

// The sticky assignor over every member (empty assignments while the
// topology is not ready), with the num.standby.replicas of the last bump.
void group_slot::compute_streams_target(streams_group& g) {
    std::map<std::string, tasks_tuple> target;
    if (g.configured && g.configured->ready()) {
        std::map<std::string, streams_assignor_member> members;
        for (const auto& [id, m] : g.members) members[id] = {m.process_id, g.target_of(id)};
        std::map<std::string, streams_assignor_subtopology> subs;
        for (const auto& [s, c] : g.configured->subtopologies) subs[s] = {c.number_of_tasks, c.stateful};
        target = assign_tasks(members, subs, g.last_num_standby.value_or(streams_num_standby_replicas()));
    } else {
        for (const auto& [id, _] : g.members) target[id];
    }
    g.target = std::move(target);
    g.assignment_epoch = g.group_epoch;
    g.assignment_timestamp_ms = clock_.now_ms();
}

}  // namespace ketch::group
