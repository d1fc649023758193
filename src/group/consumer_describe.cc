// ConsumerGroupDescribe (KIP-848). Mirrors GroupCoordinatorService
// .consumerGroupDescribe and ConsumerGroup.asDescribedGroup /
// ConsumerGroupMember.asConsumerGroupDescribeMember (Kafka 4.3.1): a group
// that is not a consumer group is GROUP_ID_NOT_FOUND; an empty group id is
// INVALID_GROUP_ID.
#include "group/consumer_util.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

namespace {

std::vector<described_topic_partitions> describe_partitions(const topic_partitions& a, const topic_index& topics) {
    std::map<uuid, std::string> names;
    for (const auto& [name, meta] : topics) names[meta.id] = name;
    std::vector<described_topic_partitions> out;
    for (const auto& [id, ps] : a) {
        auto n = names.find(id);
        if (n == names.end()) continue;  // deleted meanwhile: Kafka skips topics not in its image
        out.push_back({id, n->second, {ps.begin(), ps.end()}});
    }
    return out;
}

}  // namespace

std::vector<described_consumer_group> group_coordinator::consumer_describe(const std::vector<std::string>& group_ids) {
    topic_index topics;
    return describe_each<described_consumer_group>(
        group_ids, [this](const std::string& id) { return describe_refusal(id, true); },
        [&topics](group_slot& s, described_consumer_group& d) {
            if (topics.empty()) topics = s.topics_by_name();
            ketch::lock_guard lock(s.mu_);
            s.describe_consumer(d, topics);
        });
}

void group_slot::describe_consumer(described_consumer_group& d, const topic_index& topics) {
    const auto& id = id_;
    auto* g = consumer_.get();
    if (!g) {
        d.error = error_code::group_id_not_found;
        d.error_message = classic_ ? "Group " + id + " is not a consumer group." : "Group " + id + " not found.";
        return;
    }
    d.group_state = std::string(consumer_state_name(g->state()));
    d.group_epoch = g->group_epoch();
    d.assignment_epoch = g->assignment_epoch();
    d.assignor_name = g->preferred_assignor().value_or(std::string(default_assignor));
    for (const auto& [mid, m] : g->members()) {
        auto& dm = d.members.emplace_back();
        dm.describe(mid, m);
        dm.subscribed_topic_names.assign(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
        // ConsumerGroupMember keeps "" for a member that subscribed by topic names
        // (checked against Kafka 4.3.1: conformance scenario groups, cg-describe).
        dm.subscribed_topic_regex = m.subscribed_topic_regex.value_or("");
        dm.assignment = describe_partitions(m.assigned, topics);
        dm.target_assignment = describe_partitions(g->target_of(mid), topics);
        dm.uses_classic_protocol = m.uses_classic();
    }
}

topic_index group_slot::topics_by_name() const {
    topic_index out;
    const topic_view* view = env_.topics;
    if (!view) return out;
    for (auto& t : view->topics()) {
        auto name = t.name;
        out.emplace(std::move(name), std::move(t));
    }
    return out;
}

consumer_group* group_slot::find_consumer(const std::string& group_id) {
    return group_id == id_ ? consumer_.get() : nullptr;
}

}  // namespace ketch::group
