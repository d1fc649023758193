// Share sessions and share-partition delivery. Behaviour:
// SharePartitionManager.newContext / acknowledge / releaseSession and
// SharePartition (core/src/main/java/kafka/server/share/, Apache Kafka
// 4.3.1); the session epochs as ShareRequestMetadata defines them.
#include "share/coordinator.h"

#include "meta/iso_duration.h"

namespace ketch::share {

namespace {
constexpr int32_t k_final_epoch = -1;
int32_t next_epoch(int32_t e) { return e < 0 ? 0 : (e == INT32_MAX ? 1 : e + 1); }
}  // namespace

session_answer coordinator::fetch_session(const std::string& group, const std::string& member, int32_t epoch,
                                          const std::vector<topic_partition>& add,
                                          const std::vector<topic_partition>& forget, bool has_acks,
                                          uint64_t connection) {
    durable_on_return durable(*this);
    lock_guard l(mu_);
    session_answer a;
    a.lock_duration_ms = limits(group).lock_duration_ms;
    auto key = std::make_pair(group, member);
    auto it = sessions_.find(key);
    if (epoch == k_final_epoch) {
        // A final request only acknowledges; its partitions are not fetched.
        if (it == sessions_.end()) a.error = error_code::share_session_not_found;
        a.final = true;
        return a;
    }
    if (epoch == 0) {
        if (has_acks) {
            a.error = error_code::invalid_request;
            return a;
        }
        if (it != sessions_.end()) {
            release_member(group, member);
            sessions_.erase(it);
        }
        if (int32_t(sessions_.size()) >= settings_.max_share_sessions) {
            a.error = error_code::share_session_limit_reached;
            return a;
        }
        it = sessions_.emplace(key, session{}).first;
    } else {
        if (it == sessions_.end()) {
            a.error = error_code::share_session_not_found;
            return a;
        }
        if (it->second.epoch != epoch) {
            a.error = error_code::invalid_share_session_epoch;
            return a;
        }
        it->second.epoch = next_epoch(epoch);
    }
    it->second.connection = connection;
    for (auto& tp : add) it->second.partitions.insert(tp);
    for (auto& tp : forget) it->second.partitions.erase(tp);
    a.partitions.assign(it->second.partitions.begin(), it->second.partitions.end());
    return a;
}

session_answer coordinator::ack_session(const std::string& group, const std::string& member, int32_t epoch) {
    lock_guard l(mu_);
    session_answer a;
    a.lock_duration_ms = limits(group).lock_duration_ms;
    auto it = sessions_.find({group, member});
    // ShareAcknowledge cannot open a session.
    if (epoch == 0) {
        a.error = error_code::invalid_share_session_epoch;
        return a;
    }
    if (it == sessions_.end()) {
        a.error = error_code::share_session_not_found;
        return a;
    }
    if (epoch == k_final_epoch) {
        a.final = true;
        return a;
    }
    if (it->second.epoch != epoch) {
        a.error = error_code::invalid_share_session_epoch;
        return a;
    }
    it->second.epoch = next_epoch(epoch);
    return a;
}

void coordinator::close_session(const std::string& group, const std::string& member) {
    durable_on_return durable(*this);
    lock_guard l(mu_);
    sessions_.erase({group, member});
    release_member(group, member);
}

void coordinator::connection_closed(uint64_t connection) {
    if (connection == 0) return;
    durable_on_return durable(*this);
    lock_guard l(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        if (it->second.connection != connection) {
            ++it;
            continue;
        }
        release_member(it->first.first, it->first.second);
        it = sessions_.erase(it);
    }
}

error_code coordinator::acknowledge(const std::string& group, const std::string& member, const topic_partition& tp,
                                    const std::vector<ack_batch>& batches, std::string* why) {
    durable_on_return durable(*this);
    return acknowledge_unsynced(group, member, tp, batches, why);
}

error_code coordinator::acknowledge_unsynced(const std::string& group, const std::string& member,
                                             const topic_partition& tp, const std::vector<ack_batch>& batches,
                                             std::string* why) {
    lock_guard l(mu_);
    // Cluster mode: the state is another broker's (or was lost).
    if (!held(tp)) return error_code::not_leader_or_follower;
    auto it = partitions_.find({group, tp.topic_id, tp.partition});
    // Nothing was ever acquired there: no record can be in the right state.
    if (it == partitions_.end()) return error_code::invalid_record_state;
    auto e = it->second.acknowledge(member, batches, clock_(), limits(group), why);
    // A refused acknowledgement changed nothing.
    if (e == error_code::none) persist(group, tp.topic_id, tp.partition, it->second);
    return e;
}

read_settings coordinator::reading(const std::string& group) const {
    auto cfg = configs_(group);
    read_settings r;
    if (auto it = cfg.find("share.isolation.level"); it != cfg.end()) r.read_committed = it->second == "read_committed";
    if (auto it = cfg.find("share.auto.offset.reset"); it != cfg.end())
        r.reset_by_duration_ms = meta::share_reset_duration_ms(it->second);
    return r;
}

coordinator::read_range coordinator::fetch_range(const std::string& group, const topic_partition& tp, int64_t earliest,
                                                 int64_t latest, int32_t max_records,
                                                 const std::function<int64_t()>& by_time) {
    durable_on_return durable(*this);
    lock_guard l(mu_);
    if (!held(tp)) return {};  // cluster mode: not (or no longer) held here
    part_key key{group, tp.topic_id, tp.partition};
    auto it = partitions_.find(key);
    if (it == partitions_.end()) {
        // SharePartition.startOffsetDuringInitialization: no state yet, so the
        // start is share.auto.offset.reset's (latest unless the group says
        // earliest or by_duration).
        auto cfg = configs_(group);
        auto reset = cfg.count("share.auto.offset.reset") ? cfg.at("share.auto.offset.reset") : "latest";
        int64_t start = latest;
        if (reset == "earliest")
            start = earliest;
        else if (by_time && meta::share_reset_duration_ms(reset))
            start = by_time();
        it = partitions_.emplace(key, partition_state(start)).first;
        persist(group, tp.topic_id, tp.partition, it->second);
    }
    auto lim = limits(group);
    it->second.expire_locks(clock_(), lim);
    // The log's start moved past the SPSO (retention, DeleteRecords).
    if (earliest > it->second.start_offset()) it->second.advance_to(earliest);
    const int64_t first = it->second.next_fetch_offset(lim);
    if (first < 0) return {};
    return {first, it->second.last_to_read(first, max_records, lim)};
}

std::vector<acquired_range> coordinator::acquire(const std::string& group, const std::string& member,
                                                 const topic_partition& tp, int64_t first, int64_t last,
                                                 int32_t max_records, const std::vector<offset_range>& aborted,
                                                 std::span<const int64_t> batch_ends) {
    std::vector<acquired_range> got;
    uint64_t hold = 0;
    {
        durable_on_return durable(*this);
        lock_guard l(mu_);
        auto it = partitions_.find({group, tp.topic_id, tp.partition});
        if (it == partitions_.end()) return {};
        got = it->second.acquire(member, first, last, max_records, clock_(), limits(group), batch_ends);
        if (got.empty()) return got;
        if (!aborted.empty()) {
            for (auto& b : aborted) it->second.archive_acquired(member, b.first, b.last);
            got = without(got, aborted);
        }
        // Cluster mode writes the acquisition too (the delivery counts), so
        // a broker taking the partition over counts these deliveries.
        if (!aborted.empty() || leased_) persist(group, tp.topic_id, tp.partition, it->second);
        if (auto h = held_.find({tp.topic_id, tp.partition}); h != held_.end())
            hold = h->second;
        else if (leased_)
            return {};
    }
    // Written (durable_on_return) or lost: what was lost is not delivered.
    if (leased_ && hold_of(tp) != hold) return {};
    return got;
}

std::optional<int64_t> coordinator::start_offset(const std::string& group, const topic_partition& tp) {
    lock_guard l(mu_);
    auto it = partitions_.find({group, tp.topic_id, tp.partition});
    if (it == partitions_.end()) return std::nullopt;
    return it->second.start_offset();
}

}  // namespace ketch::share
