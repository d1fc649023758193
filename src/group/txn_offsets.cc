// Transactional offsets: TxnOffsetCommit keeps offsets pending for the
// producer; the end of its transaction commits or drops them. Mirrors
// OffsetMetadataManager.commitTransactionalOffset / replayEndTransactionMarker
// / hasPendingTransactionalOffsets and ClassicGroup.validateOffsetCommit with
// isTransactional=true (Kafka 4.3.1).
//
// Durability: pending offsets live in meta::txn_store until the transaction
// ends, so a prepared commit completed after a restart still commits them.
#include <set>

#include "base/utf8.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

status<meta::store_error> group_coordinator::attach_txn_store(meta::txn_store& store) {
    auto rows = store.load_pending_offsets();
    if (!rows.ok()) return failure{rows.error()};
    ketch::lock_guard lock(txn_mu_);
    txn_store_ = &store;
    for (auto& p : *rows) {
        auto& o = p.offset;
        pending_txn_[p.producer_id][o.group][o.topic][o.partition] = o;
    }
    return ok_v;
}

commit_result group_coordinator::commit_txn_offsets(const txn_commit_args& args) {
    commit_result res;
    auto all = [&](error_code e) { return all_partitions(args.topics, e); };
    if (args.group_id.empty() || too_long(args.group_id)) return all(error_code::invalid_group_id);
    if (!serves(args.group_id)) return all(error_code::not_coordinator);
    ketch::lock_guard serial(txn_stripe(args.producer_id));
    auto ref = use_slot(args.group_id, true);
    group_slot& s = *ref;
    ketch::lock_guard order(s.order_mu_);
    // A broker that lost the group's lease must not add pending offsets its
    // new holder misses (the cluster's store also fences the write itself).
    if (auto e = confirm_ownership(args.group_id); e != error_code::none) return all(e);
    const int64_t now = env_.clk.now_ms();
    meta::txn_store* txns = nullptr;  // set once by attach_txn_store; read under txn_mu_
    {
        ketch::lock_guard lock(txn_mu_);
        if (env_.stopped || !txn_store_) return all(error_code::coordinator_not_available);
        txns = txn_store_;
        if (args.verification_guard) {
            // The transaction this request was verified against has ended
            // (UnifiedLog: "not part of an ongoing transaction").
            auto g = txn_guards_.find(args.producer_id);
            if (g == txn_guards_.end() || g->second != *args.verification_guard)
                return all(error_code::invalid_txn_state);
        }
    }
    {
        ketch::lock_guard lock(s.mu_);
        if (auto e = s.validate_txn_commit(args); e != error_code::none) return all(e);
    }

    std::vector<meta::pending_txn_offset> records;
    for (const auto& t : args.topics) {
        auto& rt = res.topics.emplace_back();
        rt.name = t.name;
        for (const auto& p : t.partitions) {
            std::string metadata = p.metadata.value_or("");
            if (utf16_length(metadata) > size_t(env_.config.offset_metadata_max_bytes)) {
                rt.partitions.push_back({p.partition, error_code::offset_metadata_too_large});
                continue;
            }
            rt.partitions.push_back({p.partition, error_code::none});
            records.push_back(
                {args.producer_id, meta::stored_offset{args.group_id, t.name, p.partition, p.offset, p.leader_epoch,
                                                       std::move(metadata), now, std::nullopt}});
        }
    }
    if (records.empty()) return res;
    if (!txns->put_pending_offsets(records)) return all(error_code::not_coordinator);
    ketch::lock_guard lock(txn_mu_);
    for (auto& r : records) pending_txn_[r.producer_id][r.offset.group][r.offset.topic][r.offset.partition] = r.offset;
    return res;
}

// ClassicGroup / ConsumerGroup / StreamsGroup.validateOffsetCommit with
// isTransactional.
error_code group_slot::validate_txn_commit(const txn_commit_args& args) {
    auto* cg = find_consumer(args.group_id);
    auto* sg = cg ? nullptr : find_streams(args.group_id);
    if (cg || sg) {
        // ConsumerGroup / StreamsGroup.validateOffsetCommit (isTransactional):
        // checked only when a generation, member id or instance id is
        // given; a stale member epoch is answered ILLEGAL_GENERATION
        // (OffsetMetadataManager.validateTransactionalOffsetCommit).
        const bool anonymous = args.generation_id == -1 && args.member_id.empty() && !args.group_instance_id;
        auto e = anonymous ? error_code::none
                 : cg      ? validate_consumer_offsets(*cg, args.member_id, args.generation_id, true, 9, &args.topics)
                           : validate_streams_offsets(*sg, args.member_id, args.generation_id, true, 9, &args.topics);
        if (e == error_code::stale_member_epoch) e = error_code::illegal_generation;
        if (e != error_code::none) return e;
    } else if (auto* g = find(args.group_id); g || args.generation_id < 0) {
        if (!g) g = &get_or_create(args.group_id);
        if (g->is(group_state::dead)) return error_code::coordinator_not_available;
        if (!(args.generation_id < 0 && g->is(group_state::empty)) &&
            (args.generation_id >= 0 || !args.member_id.empty() || args.group_instance_id)) {
            if (auto e = g->validate_member(args.member_id, args.group_instance_id); e != error_code::none) return e;
            if (args.generation_id != g->generation()) return error_code::illegal_generation;
        }
    } else {
        return error_code::illegal_generation;
    }
    return error_code::none;
}

uint64_t group_coordinator::begin_txn_offsets_verification(int64_t producer_id) {
    ketch::lock_guard lock(txn_mu_);
    auto [it, added] = txn_guards_.try_emplace(producer_id, 0);
    if (added) it->second = ++next_txn_guard_;
    return it->second;
}

bool group_coordinator::txn_offsets_guard_valid(int64_t producer_id, uint64_t guard) {
    ketch::lock_guard lock(txn_mu_);
    auto g = txn_guards_.find(producer_id);
    return g != txn_guards_.end() && g->second == guard;
}

bool group_coordinator::complete_txn_offsets(int64_t producer_id, bool commit) {
    ketch::lock_guard serial(txn_stripe(producer_id));
    std::map<std::string, group_offsets> pending;
    meta::txn_store* txns = nullptr;
    {
        ketch::lock_guard lock(txn_mu_);
        txns = txn_store_;
        txn_guards_.erase(producer_id);
        auto it = pending_txn_.find(producer_id);
        if (it == pending_txn_.end()) return true;
        pending = it->second;
    }
    if (commit) {
        for (auto& [group_id, topics] : pending) {
            auto ref = use_slot(group_id, true);
            group_slot& s = *ref;
            ketch::lock_guard order(s.order_mu_);
            std::vector<meta::stored_offset> records;
            for (auto& [topic, parts] : topics)
                for (auto& [p, o] : parts) records.push_back(o);
            if (!store_.commit_offsets(records)) return false;
            ketch::lock_guard lock(s.mu_);
            s.remember_offsets(records, true);
        }
    }
    if (!txns || !txns->delete_pending_offsets(producer_id)) return false;
    ketch::lock_guard lock(txn_mu_);
    pending_txn_.erase(producer_id);
    return true;
}

std::vector<int64_t> group_coordinator::adopt_pending_txn_offsets(
    const std::string& group_id, const std::vector<meta::pending_txn_offset>& pending) {
    ketch::lock_guard lock(txn_mu_);
    for (auto it = pending_txn_.begin(); it != pending_txn_.end();) {
        it->second.erase(group_id);
        it = it->second.empty() ? pending_txn_.erase(it) : std::next(it);
    }
    std::set<int64_t> producers;
    for (auto& p : pending) {
        auto& o = p.offset;
        pending_txn_[p.producer_id][group_id][o.topic][o.partition] = o;
        producers.insert(p.producer_id);
    }
    return {producers.begin(), producers.end()};
}

error_code group_coordinator::confirm_ownership(const std::string& group_id) {
    auto* o = ownership_.load();
    if (!o) return error_code::none;
    switch (o->confirm(group_id)) {
        case group_ownership::confirmation::held: return error_code::none;
        case group_ownership::confirmation::moved: return error_code::not_coordinator;
        case group_ownership::confirmation::unknown: break;
    }
    return error_code::coordinator_not_available;
}

bool group_coordinator::has_pending_txn_offset(const std::string& group_id, const std::string& topic,
                                               int32_t partition) {
    ketch::lock_guard lock(txn_mu_);
    for (auto& [pid, groups] : pending_txn_) {
        auto g = groups.find(group_id);
        if (g == groups.end()) continue;
        auto t = g->second.find(topic);
        if (t != g->second.end() && t->second.count(partition)) return true;
    }
    return false;
}

}  // namespace ketch::group
