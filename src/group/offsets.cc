// OffsetCommit, OffsetFetch and OffsetDelete. Mirrors OffsetMetadataManager
// (commitOffset, fetchOffsets, fetchAllOffsets, deleteOffsets) and
// ClassicGroup.validateOffsetCommit / validateOffsetDelete (Kafka 4.3.1).
//
// A commit holds the group's order lock (group_slot::order_mu_) from
// validation to the end of its store write, so commits (and deletes, expiry)
// of one group reach the store in order; the slot's mu_ is held only around
// the in-memory parts.
#include "base/utf8.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

// ConsumerGroup.validateOffsetCommit / validateOffsetFetch: a member of a
// consumer group fetches with its current member epoch and commits with it or,
// per partition, an older one (KIP-1251).
error_code group_slot::validate_consumer_offsets(const consumer_group& g, const std::string& member_id,
                                                 int32_t member_epoch, bool commit, int16_t api_version,
                                                 const std::vector<commit_topic>* commit_topics) const {
    auto found = offsets_member(g, member_id, member_epoch, commit);
    if (!found) return found.error();
    const auto* m = *found;
    // A classic-protocol member of a consumer group commits with any version and
    // its member epoch as generation (ConsumerGroup.validateOffsetCommit,
    // validateMemberEpoch).
    if (commit && api_version < 9 && !m->uses_classic()) return error_code::unsupported_version;
    if (member_epoch == m->member_epoch) return error_code::none;
    const error_code stale = m->uses_classic() ? error_code::illegal_generation : error_code::stale_member_epoch;
    if (member_epoch > m->member_epoch || !commit_topics) return stale;
    // KIP-1251 (ConsumerGroup.createAssignmentEpochValidator): an older epoch
    // commits a partition the member holds (assigned or pending revocation)
    // since that epoch or an earlier one; any other partition fails the
    // whole request.
    const auto topics = topics_by_name();
    for (const auto& t : *commit_topics) {
        auto it = topics.find(t.name);
        for (const auto& p : t.partitions) {
            auto assigned_at = it == topics.end() ? std::nullopt : m->assignment_epoch_of(it->second.id, p.partition);
            if (!assigned_at || member_epoch < *assigned_at) return stale;
        }
    }
    return error_code::none;
}

// OffsetMetadataManager.validateOffsetCommit + ClassicGroup.validateOffsetCommit
error_code group_slot::validate_commit(const commit_args& args) {
    if (auto* cg = find_consumer(args.group_id))
        return validate_consumer_offsets(*cg, args.member_id, args.generation_id, true, args.api_version, &args.topics);
    if (auto* sg = find_streams(args.group_id))
        return validate_streams_offsets(*sg, args.member_id, args.generation_id, true, args.api_version, &args.topics);
    auto* g = find(args.group_id);
    if (!g) {
        // Generation -1: an admin client or a consumer without group
        // management; a "simple" group is created. Otherwise the group is
        // unknown: GROUP_ID_NOT_FOUND from v9, ILLEGAL_GENERATION before.
        if (args.generation_id >= 0)
            return args.api_version >= 9 ? error_code::group_id_not_found : error_code::illegal_generation;
        g = &get_or_create(args.group_id);
    }
    if (g->is(group_state::dead)) return error_code::coordinator_not_available;
    if (args.generation_id < 0 && g->is(group_state::empty)) return error_code::none;
    if (args.generation_id >= 0 || !args.member_id.empty() || args.group_instance_id) {
        if (auto e = g->validate_member(args.member_id, args.group_instance_id); e != error_code::none) return e;
        if (args.generation_id != g->generation()) return error_code::illegal_generation;
    } else if (!g->is(group_state::empty)) {
        // No member id and no generation: only an Empty group takes it.
        return error_code::unknown_member_id;
    }
    // A valid member that has not synced yet must finish the rebalance first.
    if (g->is(group_state::completing_rebalance)) return error_code::rebalance_in_progress;
    // In the classic protocol a commit also keeps the member's session alive.
    if (g->is(group_state::stable) || g->is(group_state::preparing_rebalance)) {
        auto& m = g->member(args.member_id);
        reschedule_heartbeat(*g, m, m.session_timeout_ms);
    }
    return error_code::none;
}

void group_coordinator::commit_offsets(commit_args args, std::function<void(commit_result)> done) {
    if (too_long(args.group_id)) return done(all_partitions(args.topics, error_code::invalid_group_id));
    if (too_long(args.member_id) || too_long(args.group_instance_id))
        return done(all_partitions(args.topics, error_code::invalid_request));

    if (!serves(args.group_id)) return done(all_partitions(args.topics, error_code::not_coordinator));
    auto ref = use_slot(args.group_id, true);
    group_slot& s = *ref;
    ketch::unique_lock order(s.order_mu_);
    const int64_t now = env_.clk.now_ms();
    auto e = error_code::coordinator_not_available;
    {
        ketch::lock_guard lock(s.mu_);
        if (!env_.stopped) e = s.validate_commit(args);
    }
    if (e != error_code::none) {
        order.unlock();
        return done(all_partitions(args.topics, e));
    }
    commit_result res;
    std::vector<meta::stored_offset> records;
    std::optional<int64_t> expire;
    if (args.retention_time_ms != -1) expire = now + args.retention_time_ms;  // v2-4 explicit retention
    for (auto& t : args.topics) {
        auto& rt = res.topics.emplace_back();
        rt.name = t.name;
        for (auto& p : t.partitions) {
            std::string metadata = p.metadata.value_or("");
            if (utf16_length(metadata) > size_t(env_.config.offset_metadata_max_bytes)) {
                rt.partitions.push_back({p.partition, error_code::offset_metadata_too_large});
                continue;
            }
            rt.partitions.push_back({p.partition, error_code::none});
            records.push_back(meta::stored_offset{args.group_id, t.name, p.partition, p.offset, p.leader_epoch,
                                                  std::move(metadata), now, expire});
        }
    }
    if (!records.empty()) {
        if (!store_.commit_offsets(records)) {
            // Kafka answers a failed write to its log (KAFKA_STORAGE_ERROR) NOT_COORDINATOR.
            order.unlock();
            return done(all_partitions(args.topics, error_code::not_coordinator));
        }
        ketch::lock_guard lock(s.mu_);
        s.remember_offsets(records, false);
    }
    order.unlock();
    done(std::move(res));
}

void group_slot::remember_offsets(std::vector<meta::stored_offset>& records, bool create) {
    if (!has_group()) {
        if (!create) return;  // deleted meanwhile: the offsets go with it
        get_or_create(id_);
    }
    for (auto& r : records) {
        auto topic = r.topic;
        auto partition = r.partition;
        offsets_[topic][partition] = std::move(r);
    }
}

fetch_result group_coordinator::fetch_offsets(const fetch_args& args) {
    if (too_long(args.group_id)) return fetch_result{.error = error_code::invalid_group_id};
    if (!serves(args.group_id)) return fetch_result{.error = error_code::not_coordinator};
    // Answered from memory: first make sure no other broker took the group
    // meanwhile (this one paused past its lease would answer stale offsets).
    if (auto e = confirm_ownership(args.group_id); e != error_code::none) return fetch_result{.error = e};
    auto ref = use_slot(args.group_id, true);
    group_slot& s = *ref;
    ketch::lock_guard lock(s.mu_);
    if (env_.stopped) return fetch_result{.error = error_code::coordinator_not_available};
    return s.fetch_locked(args);
}

fetch_result group_slot::fetch_locked(const fetch_args& args) {
    fetch_result res;
    // An unknown group has no offsets (no error); ClassicGroup.validateOffsetFetch
    // checks nothing else.
    if (auto* cg = find_consumer(args.group_id)) {
        res.error = validate_consumer_offsets(*cg, args.member_id.value_or(""), args.member_epoch, false, 0);
        if (res.error != error_code::none) return res;
    }
    if (auto* sg = find_streams(args.group_id)) {
        res.error = validate_streams_offsets(*sg, args.member_id.value_or(""), args.member_epoch, false, 0);
        if (res.error != error_code::none) return res;
    }
    const group_offsets* offs = has_group() && !offsets_.empty() ? &offsets_ : nullptr;
    auto fill = [](fetch_partition& fp, const meta::stored_offset& o) {
        fp.offset = o.offset;
        fp.leader_epoch = o.leader_epoch;
        fp.metadata = o.metadata;
    };
    if (args.topics) {
        for (const auto& t : *args.topics) {
            auto& rt = res.topics.emplace_back();
            rt.name = t.name;
            const std::map<int32_t, meta::stored_offset>* parts = nullptr;
            if (offs) {
                auto it = offs->find(t.name);
                if (it != offs->end()) parts = &it->second;
            }
            for (int32_t p : t.partitions) {
                auto& fp = rt.partitions.emplace_back();
                fp.partition = p;
                if (parts) {
                    auto it = parts->find(p);
                    if (it != parts->end()) fill(fp, it->second);
                }
            }
        }
    } else if (offs) {
        for (const auto& [topic, parts] : *offs) {
            auto& rt = res.topics.emplace_back();
            rt.name = topic;
            for (const auto& [p, o] : parts) {
                auto& fp = rt.partitions.emplace_back();
                fp.partition = p;
                fill(fp, o);
            }
        }
    }
    return res;
}

void group_slot::forget_offsets(const std::vector<meta::offset_key>& keys) {
    for (const auto& k : keys) {
        auto t = offsets_.find(k.topic);
        if (t == offsets_.end()) continue;
        t->second.erase(k.partition);
        if (t->second.empty()) offsets_.erase(t);
    }
}

offset_delete_result group_coordinator::delete_offsets(const offset_delete_args& args) {
    offset_delete_result res;
    if (args.group_id.empty() || too_long(args.group_id)) {
        res.error = error_code::invalid_group_id;
        return res;
    }
    if (!serves(args.group_id)) {
        res.error = error_code::not_coordinator;
        return res;
    }
    auto ref = use_slot(args.group_id, true);
    group_slot& s = *ref;
    ketch::lock_guard order(s.order_mu_);
    std::vector<meta::offset_key> doomed;
    {
        ketch::lock_guard lock(s.mu_);
        if (env_.stopped) {
            res.error = error_code::coordinator_not_available;
            return res;
        }
        s.offsets_to_delete(args, res, doomed);
    }
    if (doomed.empty()) return res;
    if (!store_.delete_offsets(args.group_id, doomed))
        return offset_delete_result{.error = error_code::not_coordinator};
    ketch::lock_guard lock(s.mu_);
    s.forget_offsets(doomed);
    return res;
}

void group_slot::offsets_to_delete(const offset_delete_args& args, offset_delete_result& res,
                                   std::vector<meta::offset_key>& doomed) {
    auto* g = find(args.group_id);
    // ConsumerGroup.validateOffsetDelete accepts any state; a topic the
    // group subscribes to is refused partition by partition.
    auto* cg = find_consumer(args.group_id);
    // StreamsGroup.validateOffsetDelete accepts any state; while the group
    // has members, a topic its topology reads is refused (isSubscribedToTopic).
    auto* sg = cg ? nullptr : find_streams(args.group_id);
    // ClassicGroup.validateOffsetDelete
    if (!cg && !sg && (!g || g->is(group_state::dead))) {
        res.error = error_code::group_id_not_found;
        return;
    }
    if (!cg && !sg && !g->is(group_state::empty) && !g->uses_consumer_protocol()) {
        res.error = error_code::non_empty_group;
        return;
    }
    for (const auto& t : args.topics) {
        auto& rt = res.topics.emplace_back();
        rt.name = t.name;
        const bool subscribed = cg   ? cg->subscription_metadata().count(t.name) != 0
                                : sg ? streams_reads_topic(*sg, t.name)
                                     : g->is_subscribed_to_topic(t.name);
        for (int32_t p : t.partitions) {
            rt.partitions.push_back({p, subscribed ? error_code::group_subscribed_to_topic : error_code::none});
            if (subscribed) continue;
            auto tp = offsets_.find(t.name);
            if (tp != offsets_.end() && tp->second.count(p)) doomed.push_back({t.name, p});
        }
    }
}

void group_slot::offsets_of_topics(const std::vector<std::string>& topics, std::vector<meta::offset_key>& doomed) {
    for (const auto& t : topics) {
        auto tp = offsets_.find(t);
        if (tp == offsets_.end()) continue;
        for (const auto& [p, o] : tp->second) doomed.push_back({t, p});
    }
}

void group_coordinator::on_topics_deleted(const std::vector<std::string>& topics) {
    for (auto& ref : all_slots()) {
        group_slot& s = *ref;
        ketch::lock_guard order(s.order_mu_);
        std::vector<meta::offset_key> doomed;
        {
            ketch::lock_guard lock(s.mu_);
            s.offsets_of_topics(topics, doomed);
        }
        if (doomed.empty() || !store_.delete_offsets(s.id(), doomed)) continue;
        ketch::lock_guard lock(s.mu_);
        s.forget_offsets(doomed);
    }
}

}  // namespace ketch::group
