#include "cli/consumer_member.h"

#include <algorithm>
#include <thread>

#include "protocol/messages/consumer_group_heartbeat.h"

namespace ketch::cli {

namespace {
constexpr int16_t k_unknown_member_id = 25, k_fenced_member_epoch = 110;
constexpr int16_t k_load_in_progress = 14, k_not_available = 15, k_not_coordinator = 16;
constexpr int32_t k_leave_epoch = -1;
}  // namespace

consumer_member::consumer_member(client& c, std::string group, std::vector<std::string> topics)
    : c_(c), group_(std::move(group)), topics_(std::move(topics)), member_id_(uuid::random().to_base64()) {}

std::vector<topic_partition> consumer_member::names_of(
    const std::vector<std::pair<uuid, std::vector<int32_t>>>& parts) {
    auto known = [&] {
        return std::all_of(parts.begin(), parts.end(), [&](auto& p) { return topic_names_.count(p.first) != 0; });
    };
    if (!known()) {  // a topic id met for the first time: learn the subscribed topics' ids
        for (auto& t : c_.metadata(topics_).topics)
            if (t.error_code == 0 && t.name) topic_names_[t.topic_id] = *t.name;
    }
    std::vector<topic_partition> out;
    for (auto& [id, ps] : parts) {
        auto it = topic_names_.find(id);
        if (it == topic_names_.end()) continue;  // not in Metadata yet: assigned again at a later heartbeat
        for (auto p : ps) out.emplace_back(it->second, p);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool consumer_member::beat(bool joining) {
    kafka::consumer_group_heartbeat_request req;
    req.group_id = group_;
    req.member_id = member_id_;
    req.member_epoch = joining ? 0 : epoch_;
    if (joining) {
        // The first heartbeat carries everything; later ones only what changed.
        req.rebalance_timeout_ms = int32_t(c_.config().timeout.count());
        req.subscribed_topic_names = topics_;
    }
    std::map<std::string, std::vector<int32_t>> by_name;
    for (auto& [t, p] : owned_) by_name[t].push_back(p);
    req.topic_partitions.emplace();
    for (auto& [id, name] : topic_names_)
        if (by_name.count(name)) req.topic_partitions->push_back({id, by_name[name], {}});
    for (int attempt = 0;; ++attempt) {
        auto resp =
            c_.call<kafka::consumer_group_heartbeat_response>(req, c_.coordinator(group_, coordinator_type::group));
        if (resp.error_code == k_fenced_member_epoch || resp.error_code == k_unknown_member_id) {
            epoch_ = 0;
            owned_.clear();
            pending_ = std::vector<topic_partition>{};
            return false;
        }
        bool retriable = resp.error_code == k_load_in_progress || resp.error_code == k_not_available ||
                         resp.error_code == k_not_coordinator;
        if (retriable && attempt < 20) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            continue;
        }
        check(resp.error_code, "heartbeat in consumer group '" + group_ + "'", resp.error_message);
        epoch_ = resp.member_epoch;
        if (resp.heartbeat_interval_ms > 0) interval_ = std::chrono::milliseconds(resp.heartbeat_interval_ms);
        next_heartbeat_ = std::chrono::steady_clock::now() + interval_;
        if (resp.assignment) {
            std::vector<std::pair<uuid, std::vector<int32_t>>> parts;
            for (auto& tp : resp.assignment->topic_partitions) parts.emplace_back(tp.topic_id, tp.partitions);
            auto assigned = names_of(parts);
            if (assigned != owned_) pending_ = std::move(assigned);
        }
        return true;
    }
}

std::vector<topic_partition> consumer_member::join() {
    if (epoch_ == 0) {
        pending_.reset();
        beat(true);
        // A member that joins may be given its partitions a heartbeat later
        // (the target assignment is computed on the join).
        if (!pending_) {
            std::this_thread::sleep_for(std::min(interval_, std::chrono::milliseconds(500)));
            beat(false);
        }
    }
    if (pending_) {
        owned_ = std::move(*pending_);
        // Acknowledge the new assignment at once (ConsumerMembershipManager's
        // ACKNOWLEDGING state): partitions given up go to their new owner sooner.
        next_heartbeat_ = std::chrono::steady_clock::now();
    }
    pending_.reset();
    return owned_;
}

bool consumer_member::heartbeat_if_due() {
    if (std::chrono::steady_clock::now() < next_heartbeat_) return true;
    return beat(false) && !pending_;
}

void consumer_member::commit(const std::map<topic_partition, int64_t>& offsets) {
    if (epoch_ > 0) commit_offsets(c_, group_, offsets, epoch_, member_id_);
}

void consumer_member::leave() {
    if (epoch_ <= 0) return;
    kafka::consumer_group_heartbeat_request req;
    req.group_id = group_;
    req.member_id = member_id_;
    req.member_epoch = k_leave_epoch;
    c_.call<kafka::consumer_group_heartbeat_response>(req, c_.coordinator(group_, coordinator_type::group));
    epoch_ = 0;
}

}  // namespace ketch::cli
