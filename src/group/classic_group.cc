#include "group/classic_group.h"

#include <algorithm>
#include <cassert>

#include "group/consumer_protocol.h"
#include "group/java_hash.h"

namespace ketch::group {

namespace {
const bytes k_no_bytes;
}

const bytes& classic_member::metadata(const std::string& name) const {
    for (const auto& p : protocols)
        if (p.name == name) return p.metadata;
    return k_no_bytes;
}

std::string classic_member::vote(const std::set<std::string>& candidates) const {
    for (const auto& p : protocols)
        if (candidates.count(p.name)) return p.name;
    return {};
}

void classic_group::restore(std::optional<std::string> protocol_type, int32_t generation,
                            std::optional<int64_t> state_ts) {
    protocol_type_ = std::move(protocol_type);
    generation_ = generation;
    state_timestamp_ms_ = state_ts;
    subscribed_topics_ = compute_subscribed_topics();
}

void classic_group::restore_members(std::string protocol_name, const std::string& leader,
                                    std::vector<classic_member> members, int64_t now_ms) {
    if (members.empty()) return;
    for (auto& m : members) add(std::move(m), {});
    if (has_member(leader)) leader_ = leader;
    protocol_name_ = std::move(protocol_name);
    previous_state_ = state_;
    state_ = group_state::stable;
    state_timestamp_ms_ = now_ms;
    subscribed_topics_ = compute_subscribed_topics();
}

void classic_group::adopt_members(std::vector<classic_member> members, int64_t now_ms) {
    if (members.empty()) return;
    for (auto& m : members) add(std::move(m), {});
    protocol_name_ = select_protocol();
    previous_state_ = state_;
    state_ = group_state::stable;
    state_timestamp_ms_ = now_ms;
    subscribed_topics_ = compute_subscribed_topics();
}

void classic_group::count_protocols(const classic_member& m, int delta) {
    for (const auto& p : m.protocols) supported_protocols_[p.name] += delta;
}

void classic_group::add(classic_member m, join_callback cb) {
    if (m.group_instance_id) static_members_[*m.group_instance_id] = m.member_id;
    if (members_.empty()) protocol_type_ = m.protocol_type;
    if (!leader_) leader_ = m.member_id;
    m.awaiting_join = std::move(cb);
    if (m.is_awaiting_join()) ++num_awaiting_join_;
    pending_join_.erase(m.member_id);
    count_protocols(m, +1);
    auto id = m.member_id;
    members_.insert_or_assign(std::move(id), std::move(m));
}

void classic_group::remove(const std::string& id, completions& out) {
    auto it = members_.find(id);
    if (it != members_.end()) {
        auto& m = it->second;
        complete_join(m, join_result{.error = error_code::unknown_member_id}, out);
        complete_sync(m, sync_result{.error = error_code::unknown_member_id}, out);
        count_protocols(m, -1);
        if (m.group_instance_id) static_members_.erase(*m.group_instance_id);
        members_.erase(it);
    }
    if (leader_ == id) leader_ = members_.empty() ? std::nullopt : std::optional(members_.begin()->first);
    pending_join_.erase(id);
    pending_sync_.erase(id);
}

void classic_group::update_member(classic_member& m, std::vector<protocol> protocols, int32_t rebalance_timeout_ms,
                                  int32_t session_timeout_ms, join_callback cb, completions& out) {
    count_protocols(m, -1);
    m.protocols = std::move(protocols);
    count_protocols(m, +1);
    m.rebalance_timeout_ms = rebalance_timeout_ms;
    m.session_timeout_ms = session_timeout_ms;
    if (m.is_awaiting_join()) {
        join_result superseded{.error = error_code::rebalance_in_progress, .member_id = m.member_id};
        out.add(std::move(m.awaiting_join), std::move(superseded));
        m.awaiting_join = nullptr;
        --num_awaiting_join_;
    }
    m.awaiting_join = std::move(cb);
    if (m.is_awaiting_join()) ++num_awaiting_join_;
}

bool classic_group::complete_join(classic_member& m, join_result r, completions& out) {
    if (!m.is_awaiting_join()) return false;
    out.add(std::move(m.awaiting_join), std::move(r));
    m.awaiting_join = nullptr;
    --num_awaiting_join_;
    return true;
}

bool classic_group::complete_sync(classic_member& m, sync_result r, completions& out) {
    if (!m.is_awaiting_sync()) return false;
    out.add(std::move(m.awaiting_sync), std::move(r));
    m.awaiting_sync = nullptr;
    return true;
}

void classic_group::park_sync(classic_member& m, sync_callback cb, completions& out) {
    complete_sync(m, sync_result{.error = error_code::rebalance_in_progress}, out);
    m.awaiting_sync = std::move(cb);
}

std::optional<std::string> classic_group::static_member_id(const std::string& instance_id) const {
    auto it = static_members_.find(instance_id);
    if (it == static_members_.end()) return std::nullopt;
    return it->second;
}

classic_member& classic_group::replace_static_member(const std::string& instance_id, const std::string& old_id,
                                                     const std::string& new_id, completions& out) {
    auto node = members_.extract(old_id);
    assert(!node.empty());
    classic_member& old = node.mapped();
    // Fence a duplicate that still waits on a request (ClassicGroup.replaceStaticMember).
    complete_join(old, join_result{.error = error_code::fenced_instance_id, .member_id = old_id}, out);
    complete_sync(old, sync_result{.error = error_code::fenced_instance_id}, out);
    old.member_id = new_id;
    old.is_new = false;
    node.key() = new_id;
    auto& fresh = members_.insert(std::move(node)).position->second;
    if (leader_ == old_id) leader_ = new_id;
    static_members_[instance_id] = new_id;
    return fresh;
}

void classic_group::transition_to(group_state s, int64_t now_ms) {
    assert(valid_transition(state_, s));
    previous_state_ = state_;
    state_ = s;
    state_timestamp_ms_ = now_ms;
}

int32_t classic_group::rebalance_timeout_ms() const {
    int32_t t = 0;
    for (const auto& [id, m] : members_) t = std::max(t, m.rebalance_timeout_ms);
    return t;
}

bool classic_group::maybe_elect_new_joined_leader() {
    if (!leader_) return false;
    if (members_.at(*leader_).is_awaiting_join()) return true;
    for (const auto& [id, m] : members_) {
        if (m.is_awaiting_join()) {
            leader_ = id;
            return true;
        }
    }
    return false;
}

void classic_group::init_next_generation(int64_t now_ms) {
    ++generation_;
    if (!members_.empty()) {
        protocol_name_ = select_protocol();
        subscribed_topics_ = compute_subscribed_topics();
        transition_to(group_state::completing_rebalance, now_ms);
    } else {
        protocol_name_.reset();
        subscribed_topics_ = compute_subscribed_topics();
        transition_to(group_state::empty, now_ms);
    }
    pending_sync_.clear();
}

std::string classic_group::select_protocol() const {
    std::set<std::string> candidates;
    for (const auto& [name, count] : supported_protocols_)
        if (count == int(members_.size())) candidates.insert(name);
    // Votes in the order each protocol first got one (Kafka's HashMap insertion order).
    std::vector<std::pair<std::string, int>> votes;
    for (const auto& [id, m] : members_) {
        auto v = m.vote(candidates);
        auto it = std::find_if(votes.begin(), votes.end(), [&](auto& e) { return e.first == v; });
        if (it == votes.end())
            votes.emplace_back(v, 1);
        else
            ++it->second;
    }
    std::vector<std::string> names;
    for (const auto& [name, n] : votes) names.push_back(name);
    auto order = java_hash_map_order(names);
    // Kafka takes the max over the map's iteration order, keeping the first on ties.
    const std::pair<std::string, int>* best = nullptr;
    for (size_t i : order)
        if (!best || votes[i].second > best->second) best = &votes[i];
    return best ? best->first : std::string();
}

bool classic_group::supports_protocols(const std::string& type, const std::vector<protocol>& protocols) const {
    if (is(group_state::empty)) return !type.empty() && !protocols.empty();
    if (protocol_type_ != type) return false;
    for (const auto& p : protocols) {
        auto it = supported_protocols_.find(p.name);
        if (it != supported_protocols_.end() && it->second == int(members_.size())) return true;
    }
    return false;
}

std::vector<join_member> classic_group::current_members() const {
    std::vector<join_member> out;
    for (const auto& [id, m] : members_)
        out.push_back(join_member{id, m.group_instance_id, m.metadata(protocol_name_.value_or(""))});
    return out;
}

bool classic_group::is_subscribed_to_topic(const std::string& topic) const {
    if (subscribed_topics_) return subscribed_topics_->count(topic) != 0;
    return uses_consumer_protocol();
}

std::optional<std::set<std::string>> classic_group::compute_subscribed_topics() const {
    if (!protocol_type_ || *protocol_type_ != consumer_protocol_type) return std::nullopt;
    if (members_.empty()) return std::set<std::string>{};
    if (!protocol_name_) return std::nullopt;
    std::set<std::string> all;
    for (const auto& [id, m] : members_) {
        auto topics = subscription_topics(m.metadata(*protocol_name_));
        if (!topics) return std::nullopt;  // Kafka: "not aware of the subscribed topics"
        all.merge(*topics);
    }
    return all;
}

error_code classic_group::validate_member(const std::string& member_id,
                                          const std::optional<std::string>& instance_id) const {
    if (instance_id) {
        auto existing = static_member_id(*instance_id);
        if (!existing) return error_code::unknown_member_id;
        if (*existing != member_id) return error_code::fenced_instance_id;
    }
    return has_member(member_id) ? error_code::none : error_code::unknown_member_id;
}

}  // namespace ketch::group
