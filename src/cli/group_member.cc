#include "cli/group_member.h"

#include <algorithm>
#include <set>

#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/sync_group.h"
#include "protocol/wire.h"

namespace ketch::cli {

namespace {
constexpr int32_t k_session_timeout_ms = 10000;

constexpr auto k_heartbeat_interval = std::chrono::milliseconds(3000);
}  // namespace

bytes encode_subscription(const std::vector<std::string>& topics) {
    kafka::writer w;
    w.i16(0);
    w.array_length(int32_t(topics.size()), false);
    for (auto& t : topics) w.string(t, false);
    w.nullable_bytes(std::nullopt, false);  // user data
    return w.take_bytes();
}

std::vector<std::string> decode_subscription(byte_view b) {
    kafka::reader r(b.data(), b.size());
    r.i16();  // version: later versions only append fields
    int32_t n = r.array_length(false);
    std::vector<std::string> out;
    for (int32_t i = 0; i < n; ++i) out.push_back(r.string(false));
    return out;
}

bytes encode_assignment(const std::vector<topic_partition>& parts) {
    std::map<std::string, std::vector<int32_t>> by_topic;
    for (auto& [t, p] : parts) by_topic[t].push_back(p);
    kafka::writer w;
    w.i16(0);
    w.array_length(int32_t(by_topic.size()), false);
    for (auto& [t, ps] : by_topic) {
        w.string(t, false);
        w.array_length(int32_t(ps.size()), false);
        for (auto p : ps) w.i32(p);
    }
    w.nullable_bytes(std::nullopt, false);
    return w.take_bytes();
}

std::vector<topic_partition> decode_assignment(byte_view b) {
    std::vector<topic_partition> out;
    if (b.empty()) return out;  // no partitions for this member
    kafka::reader r(b.data(), b.size());
    r.i16();
    int32_t n = r.array_length(false);
    for (int32_t i = 0; i < n; ++i) {
        std::string t = r.string(false);
        int32_t m = r.array_length(false);
        for (int32_t j = 0; j < m; ++j) out.emplace_back(t, r.i32());
    }
    return out;
}

std::map<std::string, std::vector<topic_partition>> range_assign(
    const std::map<std::string, std::vector<std::string>>& subscriptions,
    const std::map<std::string, int32_t>& partitions) {
    std::map<std::string, std::vector<topic_partition>> out;
    for (auto& [m, _] : subscriptions) out[m];
    for (auto& [topic, count] : partitions) {
        std::vector<std::string> members;
        for (auto& [m, topics] : subscriptions)
            if (std::find(topics.begin(), topics.end(), topic) != topics.end()) members.push_back(m);
        if (members.empty()) continue;
        int32_t per = count / int32_t(members.size()), extra = count % int32_t(members.size());
        int32_t next = 0;
        for (int32_t i = 0; i < int32_t(members.size()); ++i) {
            int32_t n = per + (i < extra ? 1 : 0);
            for (int32_t k = 0; k < n; ++k) out[members[size_t(i)]].emplace_back(topic, next++);
        }
    }
    return out;
}

group_member::group_member(client& c, std::string group, std::vector<std::string> topics)
    : c_(c), group_(std::move(group)), topics_(std::move(topics)) {}

std::vector<topic_partition> group_member::join() {
    for (int attempt = 0;; ++attempt) {
        int node = c_.coordinator(group_, coordinator_type::group);
        kafka::join_group_request jr;
        jr.group_id = group_;
        jr.session_timeout_ms = k_session_timeout_ms;
        jr.rebalance_timeout_ms = int32_t(c_.config().timeout.count());  // the JoinGroup answer must come within it
        jr.member_id = member_id_;
        jr.protocol_type = "consumer";
        jr.protocols.push_back({"range", encode_subscription(topics_), {}});
        // JoinGroup waits up to the rebalance timeout for the other members.
        auto join = c_.call<kafka::join_group_response>(jr, node);
        if (join.error_code == 79 && attempt < 3) {  // MEMBER_ID_REQUIRED (KIP-394): join again with it
            member_id_ = join.member_id;
            continue;
        }
        if ((join.error_code == 25 || join.error_code == 22) && attempt < 3) {  // UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION
            member_id_.clear();
            continue;
        }
        if (join.error_code == 27 && attempt < 5) continue;  // REBALANCE_IN_PROGRESS
        check(join.error_code, "join group '" + group_ + "'");
        member_id_ = join.member_id;
        generation_ = join.generation_id;

        kafka::sync_group_request sr;
        sr.group_id = group_;
        sr.generation_id = generation_;
        sr.member_id = member_id_;
        sr.protocol_type = "consumer";
        sr.protocol_name = join.protocol_name.value_or("range");
        if (join.leader == member_id_) {
            std::map<std::string, std::vector<std::string>> subs;
            std::set<std::string> all_topics;
            for (auto& m : join.members) {
                subs[m.member_id] = decode_subscription(m.metadata);
                all_topics.insert(subs[m.member_id].begin(), subs[m.member_id].end());
            }
            std::map<std::string, int32_t> counts;
            auto md = c_.metadata(std::vector<std::string>(all_topics.begin(), all_topics.end()));
            for (auto& t : md.topics)
                if (t.error_code == 0 && t.name) counts[*t.name] = int32_t(t.partitions.size());
            for (auto& [m, parts] : range_assign(subs, counts))
                sr.assignments.push_back({m, encode_assignment(parts), {}});
        }
        auto sync = c_.call<kafka::sync_group_response>(sr, node);
        if (sync.error_code == 27 && attempt < 5) continue;
        check(sync.error_code, "sync group '" + group_ + "'");
        next_heartbeat_ = std::chrono::steady_clock::now() + k_heartbeat_interval;
        return decode_assignment(sync.assignment);
    }
}

bool group_member::heartbeat_if_due() {
    if (std::chrono::steady_clock::now() < next_heartbeat_) return true;
    kafka::heartbeat_request hr;
    hr.group_id = group_;
    hr.generation_id = generation_;
    hr.member_id = member_id_;
    auto resp = c_.call<kafka::heartbeat_response>(hr, c_.coordinator(group_, coordinator_type::group));
    next_heartbeat_ = std::chrono::steady_clock::now() + k_heartbeat_interval;
    if (resp.error_code == 27 || resp.error_code == 22 || resp.error_code == 25) return false;
    check(resp.error_code, "heartbeat in group '" + group_ + "'");
    return true;
}

void group_member::commit(const std::map<topic_partition, int64_t>& offsets) {
    commit_offsets(c_, group_, offsets, generation_, member_id_);
}

void group_member::leave() {
    if (member_id_.empty()) return;
    kafka::leave_group_request lr;
    lr.group_id = group_;
    lr.member_id = member_id_;
    lr.members.push_back({member_id_, std::nullopt, std::string("ketch consume exits"), {}});
    c_.call<kafka::leave_group_response>(lr, c_.coordinator(group_, coordinator_type::group));
    member_id_.clear();
}

}  // namespace ketch::cli
