#include "share/partition_state.h"

#include <algorithm>
#include <climits>

namespace ketch::share {

partition_state partition_state::restore(int64_t start_offset, std::span<const state_batch> batches) {
    partition_state p(start_offset);
    for (auto& b : batches) {
        for (int64_t o = std::max(b.first_offset, start_offset); o <= b.last_offset; ++o) {
            auto st = b.state == record_state::acquired ? record_state::available : b.state;
            p.records_[o] = record{st, b.delivery_count, {}, 0};
        }
    }
    // Offsets between the runs (none when the store wrote them) were never
    // delivered: they are available with no delivery yet.
    if (!p.records_.empty()) {
        p.end_ = p.records_.rbegin()->first + 1;
        for (int64_t o = start_offset; o < p.end_; ++o) p.records_.try_emplace(o);
    }
    p.advance_start();
    return p;
}

int64_t partition_state::next_fetch_offset(const partition_limits& lim) const {
    for (auto& [o, r] : records_)
        if (r.state == record_state::available) return o;
    // SharePartition.maybeAcquireFetch: no new records once the window holds
    // max in-flight records.
    if (end_ - start_ >= lim.max_record_locks) return -1;
    return end_;
}

int64_t partition_state::last_to_read(int64_t from, int32_t max_records, const partition_limits& lim) const {
    int64_t left = std::max(max_records, 1);
    from = std::max(from, start_);
    for (auto it = records_.lower_bound(from); it != records_.end(); ++it)
        if (it->second.state == record_state::available && --left == 0) return it->first;
    // New records (acquire's second loop): from the window's end, up to its size.
    const int64_t first_new = std::max(from, end_);
    // (acquire moves an empty window to the read's first offset.)
    const int64_t cap = (records_.empty() ? first_new : start_) + int64_t(lim.max_record_locks) - 1;
    return std::max(end_ - 1, std::min(first_new + left - 1, cap));
}

std::vector<acquired_range> partition_state::acquire(const std::string& member, int64_t first, int64_t last,
                                                     int32_t max_records, int64_t now_ms, const partition_limits& lim,
                                                     std::span<const int64_t> batch_ends) {
    std::vector<acquired_range> out;
    int64_t deadline = now_ms + lim.lock_duration_ms;
    int32_t left = std::max(max_records, 0);
    auto take = [&](int64_t o, record& r) {
        r.state = record_state::acquired;
        r.delivery_count = int16_t(r.delivery_count + 1);
        r.member = member;
        r.lock_deadline_ms = deadline;
        if (!out.empty() && out.back().last_offset == o - 1 && out.back().delivery_count == r.delivery_count)
            out.back().last_offset = o;
        else
            out.push_back({o, o, r.delivery_count});
        --left;
    };
    first = std::max(first, start_);
    // In flight: the available ones.
    for (auto it = records_.lower_bound(first); it != records_.end() && it->first <= last && left > 0; ++it)
        if (it->second.state == record_state::available) take(it->first, it->second);
    if (left <= 0 || last < end_) return out;
    // The log no longer has end_..first-1 (deleted): nothing to deliver there.
    if (first > end_) {
        if (records_.empty()) {
            start_ = end_ = first;
        } else {
            for (int64_t o = end_; o < first; ++o) records_[o] = record{record_state::archived, 0, {}, 0};
            end_ = first;
        }
    }
    // New records, up to the window's size; batch_optimized takes the rest
    // of the batch holding the last of them (lastOffsetFromBatchWithRequestOffset).
    const int64_t cap = start_ + lim.max_record_locks - 1;
    if (end_ > cap) return out;
    int64_t stop = std::min({last, cap, end_ + left - 1});
    if (!batch_ends.empty()) {
        auto b = std::lower_bound(batch_ends.begin(), batch_ends.end(), stop);
        if (b != batch_ends.end()) stop = std::min(last, *b);
    }
    for (int64_t o = end_; o <= stop; ++o) {
        take(o, records_[o]);
        end_ = o + 1;
    }
    return out;
}

std::vector<acquired_range> without(const std::vector<acquired_range>& acquired, const std::vector<offset_range>& cut) {
    std::vector<acquired_range> out;
    for (auto r : acquired) {
        for (auto& c : cut) {
            if (c.last < r.first_offset || c.first > r.last_offset) continue;
            if (c.first > r.first_offset) out.push_back({r.first_offset, c.first - 1, r.delivery_count});
            r.first_offset = c.last + 1;
            if (r.first_offset > r.last_offset) break;
        }
        if (r.first_offset <= r.last_offset) out.push_back(r);
    }
    return out;
}

void partition_state::archive_acquired(const std::string& member, int64_t first, int64_t last) {
    for (auto it = records_.lower_bound(first); it != records_.end() && it->first <= last; ++it) {
        auto& r = it->second;
        if (r.state != record_state::acquired || r.member != member) continue;
        r.state = record_state::archived;
        r.member.clear();
    }
    advance_start();
}

namespace {
bool valid_type(int8_t t) { return t >= int8_t(ack_type::gap) && t <= int8_t(ack_type::renew); }
}  // namespace

// SharePartition.acknowledge: every batch is checked before any is applied
// (Kafka rolls back what a failed acknowledgement changed).
error_code partition_state::acknowledge(const std::string& member, const std::vector<ack_batch>& batches,
                                        int64_t now_ms, const partition_limits& lim, std::string* why) {
    auto type_at = [](const ack_batch& b, int64_t o) {
        return ack_type(b.types.size() == 1 ? b.types[0] : b.types[size_t(o - b.first_offset)]);
    };
    const ack_batch* previous = nullptr;
    for (auto& b : batches) {
        if (b.last_offset < b.first_offset || b.types.empty()) return error_code::invalid_request;
        // KafkaApis.validateAcknowledgementBatches: batches in order; one
        // sharing the previous batch's last offset finds it acknowledged.
        if (previous && b.first_offset < previous->last_offset) return error_code::invalid_request;
        if (previous && b.first_offset == previous->last_offset) return error_code::invalid_record_state;
        previous = &b;
        for (auto t : b.types)
            if (!valid_type(t)) return error_code::invalid_request;
        // Every offset must be in flight and acquired by this member, except
        // offsets below the share-partition start offset, which are already
        // done and skipped (Kafka answers NONE for an ACCEPT of an
        // acknowledged offset there: conformance/scenarios/share-groups.json,
        // ack-already-acked).
        if (b.first_offset < 0 || b.last_offset >= end_) return error_code::invalid_record_state;
        if (b.types.size() != 1 && b.types.size() != uint64_t(b.last_offset - b.first_offset) + 1)
            return error_code::invalid_request;
        for (int64_t o = std::max(b.first_offset, start_); o <= b.last_offset; ++o) {
            auto& r = records_.at(o);
            if (r.state != record_state::acquired || r.member != member) return error_code::invalid_record_state;
            // acknowledgePerOffsetBatchRecords / acknowledgeCompleteBatch.
            if (type_at(b, o) == ack_type::renew && !lim.renew_enabled) {
                if (why) *why = "Renewing acquisition locks is not enabled for the group.";
                return error_code::invalid_record_state;
            }
        }
    }
    for (auto& b : batches)
        for (int64_t o = std::max(b.first_offset, start_); o <= b.last_offset; ++o) {
            auto& r = records_.at(o);
            switch (type_at(b, o)) {
                case ack_type::accept: r.state = record_state::acknowledged; break;
                case ack_type::release: release(r, lim); break;
                case ack_type::renew: r.lock_deadline_ms = now_ms + lim.lock_duration_ms; break;
                default: r.state = record_state::archived; break;  // REJECT, GAP
            }
            if (r.state != record_state::acquired) r.member.clear();
        }
    advance_start();
    return error_code::none;
}

// SharePartition: a released record goes back to AVAILABLE unless it has
// been delivered delivery.count.limit times, then ARCHIVED.
void partition_state::release(record& r, const partition_limits& lim) {
    r.state = r.delivery_count >= lim.delivery_count_limit ? record_state::archived : record_state::available;
    r.member.clear();
    r.lock_deadline_ms = 0;
}

int partition_state::release_member(const std::string& member, const partition_limits& lim) {
    int n = 0;
    for (auto& [o, r] : records_) {
        if (r.state == record_state::acquired && r.member == member) {
            release(r, lim);
            ++n;
        }
    }
    advance_start();
    return n;
}

int partition_state::expire_locks(int64_t now_ms, const partition_limits& lim) {
    int n = 0;
    for (auto& [o, r] : records_) {
        if (r.state == record_state::acquired && r.lock_deadline_ms <= now_ms) {
            release(r, lim);
            ++n;
        }
    }
    advance_start();
    return n;
}

int64_t partition_state::next_lock_deadline() const {
    int64_t d = INT64_MAX;
    for (auto& [o, r] : records_)
        if (r.state == record_state::acquired) d = std::min(d, r.lock_deadline_ms);
    return d;
}

void partition_state::reset(int64_t offset) {
    records_.clear();
    start_ = end_ = offset;
}

void partition_state::advance_to(int64_t log_start_offset) {
    if (log_start_offset <= start_) return;
    if (log_start_offset >= end_) {
        reset(log_start_offset);
        return;
    }
    records_.erase(records_.begin(), records_.lower_bound(log_start_offset));
    start_ = log_start_offset;
}

void partition_state::advance_start() {
    while (!records_.empty()) {
        auto it = records_.begin();
        if (it->second.state != record_state::acknowledged && it->second.state != record_state::archived) break;
        start_ = it->first + 1;
        records_.erase(it);
    }
    if (records_.empty()) start_ = end_;
}

std::vector<state_batch> partition_state::snapshot() const {
    std::vector<state_batch> out;
    for (auto& [o, r] : records_) {
        auto st = r.state == record_state::acquired ? record_state::available : r.state;
        if (!out.empty() && out.back().last_offset == o - 1 && out.back().state == st &&
            out.back().delivery_count == r.delivery_count)
            out.back().last_offset = o;
        else
            out.push_back({o, o, st, r.delivery_count});
    }
    return out;
}

}  // namespace ketch::share
