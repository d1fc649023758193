// Cluster mode: the end of a producer's transaction, heard by NOTIFY from the
// shared store (docs/design/cluster.md "TxnOffsetCommit atomic with the
// commit"). The notification names the producer only, and may arrive after
// the producer's next transaction sent TxnOffsetCommit here, so nothing in
// memory is applied blindly: PostgreSQL says what is still pending.
#include <set>
#include <tuple>

#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

namespace {

using pending_key = std::tuple<std::string, std::string, int32_t>;  // group, topic, partition

// Drops from `held` every offset whose key is not in `keep`.
void keep_only(std::map<std::string, group_offsets>& held, const std::set<pending_key>& keep) {
    for (auto g = held.begin(); g != held.end();) {
        for (auto t = g->second.begin(); t != g->second.end();) {
            for (auto p = t->second.begin(); p != t->second.end();)
                p = keep.count({g->first, t->first, p->first}) ? std::next(p) : t->second.erase(p);
            t = t->second.empty() ? g->second.erase(t) : std::next(t);
        }
        g = g->second.empty() ? held.erase(g) : std::next(g);
    }
}

}  // namespace

bool group_coordinator::txn_offsets_completed(int64_t producer_id, bool commit, const txn_end_reads& reads) {
    // The stripe keeps this producer's TxnOffsetCommit (store, then memory)
    // out until memory matches what the store is read to hold.
    ketch::lock_guard serial(txn_stripe(producer_id));
    std::map<std::string, group_offsets> held;
    {
        ketch::lock_guard lock(txn_mu_);
        auto it = pending_txn_.find(producer_id);
        if (it == pending_txn_.end()) return true;
        held = it->second;
    }
    auto still = reads.pending(producer_id);
    if (!still) return false;
    std::set<pending_key> later;  // a later transaction's, written after the completion
    for (auto& o : *still) later.emplace(o.group, o.topic, o.partition);
    // Read back, not taken from memory: an offset held here may already be
    // the next transaction's for the same partition.
    if (commit && !refresh_committed(held, reads)) return false;
    ketch::lock_guard lock(txn_mu_);
    auto it = pending_txn_.find(producer_id);
    if (it == pending_txn_.end()) return true;
    keep_only(it->second, later);
    if (it->second.empty()) pending_txn_.erase(it);
    return true;
}

bool group_coordinator::refresh_committed(const std::map<std::string, group_offsets>& held,
                                          const txn_end_reads& reads) {
    for (auto& [group_id, topics] : held) {
        if (!serves(group_id)) continue;  // its owner reads the store when it takes the group
        auto ref = use_slot(group_id, true);
        group_slot& s = *ref;
        ketch::lock_guard order(s.order_mu_);  // no write of the group between the read and memory
        auto rows = reads.committed(group_id);
        if (!rows) return false;
        std::vector<meta::stored_offset> records;
        for (auto& o : *rows) {
            auto t = topics.find(o.topic);
            if (t != topics.end() && t->second.count(o.partition)) records.push_back(std::move(o));
        }
        if (records.empty()) continue;
        ketch::lock_guard lock(s.mu_);
        s.remember_offsets(records, true);
    }
    return true;
}

}  // namespace ketch::group
