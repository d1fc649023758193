#include "group/consumer_group.h"

namespace ketch::group {

std::string_view consumer_state_name(consumer_group_state s) {
    switch (s) {
        case consumer_group_state::empty: return "Empty";
        case consumer_group_state::assigning: return "Assigning";
        case consumer_group_state::reconciling: return "Reconciling";
        case consumer_group_state::stable: return "Stable";
    }
    return "Unknown";
}

consumer_group_state consumer_group::state() const {
    if (members_.empty()) return consumer_group_state::empty;
    if (group_epoch_ > assignment_epoch_) return consumer_group_state::assigning;
    for (const auto& [id, m] : members_)
        if (!m.reconciled_to(assignment_epoch_)) return consumer_group_state::reconciling;
    return consumer_group_state::stable;
}

const consumer_member* consumer_group::member(const std::string& id) const {
    auto it = members_.find(id);
    return it == members_.end() ? nullptr : &it->second;
}

const consumer_member* consumer_group::static_member(const std::string& instance_id) const {
    auto it = static_members_.find(instance_id);
    return it == static_members_.end() ? nullptr : member(it->second);
}

void consumer_group::update_member(const consumer_member& m) {
    auto it = members_.find(m.member_id);
    if (it != members_.end()) {
        remove_partition_epochs(it->second);
        if (it->second.instance_id && it->second.instance_id != m.instance_id)
            static_members_.erase(*it->second.instance_id);
        it->second = m;
    } else {
        members_.emplace(m.member_id, m);
    }
    if (m.instance_id) static_members_[*m.instance_id] = m.member_id;
    add_partition_epochs(m);
}

void consumer_group::remove_member(const std::string& id) {
    auto it = members_.find(id);
    if (it == members_.end()) return;
    remove_partition_epochs(it->second);
    if (it->second.instance_id) {
        auto s = static_members_.find(*it->second.instance_id);
        if (s != static_members_.end() && s->second == id) static_members_.erase(s);
    }
    members_.erase(it);
    target_.erase(id);
}

int32_t consumer_group::partition_epoch(const uuid& topic, int32_t partition) const {
    auto t = partition_epochs_.find(topic);
    if (t == partition_epochs_.end()) return -1;
    auto p = t->second.find(partition);
    return p == t->second.end() ? -1 : p->second;
}

void consumer_group::add_partition_epochs(const consumer_member& m) {
    for (const auto* parts : {&m.assigned, &m.pending_revocation})
        for (const auto& [topic, ps] : *parts)
            for (int32_t p : ps) partition_epochs_[topic][p] = m.member_epoch;
}

void consumer_group::remove_partition_epochs(const consumer_member& m) {
    for (const auto* parts : {&m.assigned, &m.pending_revocation})
        for (const auto& [topic, ps] : *parts) {
            auto t = partition_epochs_.find(topic);
            if (t == partition_epochs_.end()) continue;
            for (int32_t p : ps) t->second.erase(p);
            if (t->second.empty()) partition_epochs_.erase(t);
        }
}

const topic_partitions& consumer_group::target_of(const std::string& member_id) const {
    static const topic_partitions none;
    auto it = target_.find(member_id);
    return it == target_.end() ? none : it->second;
}

void consumer_group::set_target(std::map<std::string, topic_partitions> target, int32_t epoch, int64_t computed_at_ms) {
    target_ = std::move(target);
    assignment_epoch_ = epoch;
    assignment_timestamp_ms_ = computed_at_ms;
}

void consumer_group::move_target(const std::string& from, const std::string& to) {
    auto it = target_.find(from);
    if (it == target_.end()) return;
    auto t = std::move(it->second);
    target_.erase(it);
    target_[to] = std::move(t);
}

std::map<std::string, int> consumer_group::subscribed_topic_names() const {
    std::map<std::string, int> out;
    for (const auto& [id, m] : members_)
        for (const auto& t : m.subscribed_topic_names) ++out[t];
    return out;
}

std::set<std::string> consumer_group::regexes() const {
    std::set<std::string> out;
    for (const auto& [id, m] : members_)
        if (m.subscribed_topic_regex && !m.subscribed_topic_regex->empty()) out.insert(*m.subscribed_topic_regex);
    return out;
}

std::optional<std::string> consumer_group::preferred_assignor() const {
    std::map<std::string, int> counts;
    for (const auto& [id, m] : members_)
        if (m.server_assignor) ++counts[*m.server_assignor];
    std::optional<std::string> best;
    int best_count = 0;
    for (const auto& [name, n] : counts)
        if (n > best_count) best = name, best_count = n;
    return best;
}

size_t consumer_group::num_classic_members() const {
    size_t n = 0;
    for (const auto& [id, m] : members_) n += m.uses_classic() ? 1 : 0;
    return n;
}

bool consumer_group::supports_classic_protocols(const std::string& protocol_type,
                                                const std::vector<protocol>& protocols) const {
    if (protocol_type != "consumer") return false;
    if (members_.empty()) return !protocols.empty();
    const size_t classic = num_classic_members();
    for (const auto& p : protocols) {
        size_t supporting = 0;
        for (const auto& [id, m] : members_) {
            if (!m.classic) continue;
            for (const auto& q : m.classic->protocols)
                if (q.name == p.name) {
                    ++supporting;
                    break;
                }
        }
        if (supporting == classic) return true;
    }
    return false;
}

bool consumer_group::all_members_use_classic_except(const std::string& member_id) const {
    const auto* m = member(member_id);
    return m && !m->uses_classic() && num_classic_members() == members_.size() - 1;
}

bool consumer_group::waiting_on_unreleased_partition(const consumer_member& m) const {
    if (m.state != member_state::unreleased_partitions) return false;
    for (const auto& [topic, ps] : target_of(m.member_id)) {
        auto have = m.assigned.find(topic);
        for (int32_t p : ps) {
            const bool assigned = have != m.assigned.end() && have->second.count(p);
            if (!assigned && partition_epoch(topic, p) != -1) return true;
        }
    }
    return false;
}

}  // namespace ketch::group
