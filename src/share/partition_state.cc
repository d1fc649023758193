#include "share/partition_state.h"

#include <algorithm>
#include <climits>

namespace ketch::share {

namespace {
// Past this many member ids, the ones holding no record are forgotten.
constexpr size_t k_members_kept = 64;
}  // namespace

partition_state partition_state::restore(int64_t start_offset, std::span<const state_batch> batches) {
    partition_state p(start_offset);
    int64_t end = start_offset;
    for (auto& b : batches) end = std::max(end, b.last_offset + 1);
    // Offsets between the runs (none when the store wrote them) were never
    // delivered: they are available with no delivery yet.
    p.records_.resize(size_t(end - start_offset));
    p.end_ = end;
    for (auto& b : batches)
        for (int64_t o = std::max(b.first_offset, start_offset); o <= b.last_offset; ++o) {
            auto& r = p.at_mut(o);
            r.state = b.state == record_state::acquired ? record_state::available : b.state;
            r.delivery_count = b.delivery_count;
        }
    for (auto& r : p.records_) ++p.counts_[size_t(r.state)];
    p.advance_start();
    return p;
}

void partition_state::set_state(record& r, record_state s) {
    --counts_[size_t(r.state)];
    ++counts_[size_t(s)];
    r.state = s;
}

uint32_t partition_state::find_member(const std::string& member) const {
    for (size_t i = 1; i < members_.size(); ++i)
        if (members_[i] == member) return uint32_t(i);
    return 0;
}

uint32_t partition_state::member_index(const std::string& member) {
    if (auto i = find_member(member)) return i;
    if (members_.size() > k_members_kept) {
        // Keep the ids that still hold records, renumbered.
        std::vector<std::string> kept{std::string()};
        std::vector<uint32_t> to(members_.size(), 0);
        for (auto& r : records_) {
            if (r.member == 0) continue;
            if (to[r.member] == 0) {
                to[r.member] = uint32_t(kept.size());
                kept.push_back(std::move(members_[r.member]));
            }
            r.member = to[r.member];
        }
        members_ = std::move(kept);
    }
    members_.push_back(member);
    return uint32_t(members_.size() - 1);
}

int64_t partition_state::next_fetch_offset(const partition_limits& lim) const {
    if (count(record_state::available) > 0)
        for (size_t i = 0; i < records_.size(); ++i)
            if (records_[i].state == record_state::available) return start_ + int64_t(i);
    // SharePartition.maybeAcquireFetch: no new records once the window holds
    // max in-flight records.
    if (end_ - start_ >= lim.max_record_locks) return -1;
    return end_;
}

int64_t partition_state::last_to_read(int64_t from, int32_t max_records, const partition_limits& lim) const {
    int64_t left = std::max(max_records, 1);
    from = std::max(from, start_);
    if (count(record_state::available) > 0)
        for (int64_t o = from; o < end_; ++o)
            if (at(o).state == record_state::available && --left == 0) return o;
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
    const int64_t deadline = now_ms + lim.lock_duration_ms;
    const uint32_t who = member_index(member);
    int32_t left = std::max(max_records, 0);
    auto take = [&](int64_t o, record& r) {
        set_state(r, record_state::acquired);
        r.delivery_count = int16_t(r.delivery_count + 1);
        r.member = who;
        r.lock_deadline_ms = deadline;
        if (!out.empty() && out.back().last_offset == o - 1 && out.back().delivery_count == r.delivery_count)
            out.back().last_offset = o;
        else
            out.push_back({o, o, r.delivery_count});
        --left;
    };
    lock_bound_ = std::min(lock_bound_, deadline);
    first = std::max(first, start_);
    // In flight: the available ones.
    if (count(record_state::available) > 0)
        for (int64_t o = first; o < end_ && o <= last && left > 0; ++o)
            if (auto& r = at_mut(o); r.state == record_state::available) take(o, r);
    if (left <= 0 || last < end_) return out;
    // The log no longer has end_..first-1 (deleted): nothing to deliver there.
    if (first > end_) {
        if (records_.empty()) {
            start_ = end_ = first;
        } else {
            for (; end_ < first; ++end_) {
                records_.push_back(record{record_state::archived, 0, 0, 0});
                ++counts_[size_t(record_state::archived)];
            }
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
        records_.emplace_back();
        ++counts_[size_t(record_state::available)];
        end_ = o + 1;
        take(o, records_.back());
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
    const uint32_t who = find_member(member);
    for (int64_t o = std::max(first, start_); who != 0 && o <= last && o < end_; ++o) {
        auto& r = at_mut(o);
        if (r.state != record_state::acquired || r.member != who) continue;
        set_state(r, record_state::archived);
        r.member = 0;
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
    const uint32_t who = find_member(member);
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
            auto& r = at(o);
            if (r.state != record_state::acquired || who == 0 || r.member != who)
                return error_code::invalid_record_state;
            // acknowledgePerOffsetBatchRecords / acknowledgeCompleteBatch.
            if (type_at(b, o) == ack_type::renew && !lim.renew_enabled) {
                if (why) *why = "Renewing acquisition locks is not enabled for the group.";
                return error_code::invalid_record_state;
            }
        }
    }
    for (auto& b : batches)
        for (int64_t o = std::max(b.first_offset, start_); o <= b.last_offset; ++o) {
            auto& r = at_mut(o);
            switch (type_at(b, o)) {
                case ack_type::accept: set_state(r, record_state::acknowledged); break;
                case ack_type::release: release(r, lim); break;
                case ack_type::renew: r.lock_deadline_ms = now_ms + lim.lock_duration_ms; break;
                default: set_state(r, record_state::archived); break;  // REJECT, GAP
            }
            if (r.state != record_state::acquired) r.member = 0;
        }
    advance_start();
    return error_code::none;
}

// SharePartition: a released record goes back to AVAILABLE unless it has
// been delivered delivery.count.limit times, then ARCHIVED.
void partition_state::release(record& r, const partition_limits& lim) {
    set_state(r, r.delivery_count >= lim.delivery_count_limit ? record_state::archived : record_state::available);
    r.member = 0;
    r.lock_deadline_ms = 0;
}

int partition_state::release_member(const std::string& member, const partition_limits& lim) {
    int n = 0;
    const uint32_t who = find_member(member);
    if (who != 0 && count(record_state::acquired) > 0)
        for (auto& r : records_) {
            if (r.state == record_state::acquired && r.member == who) {
                release(r, lim);
                ++n;
            }
        }
    advance_start();
    return n;
}

int partition_state::expire_locks(int64_t now_ms, const partition_limits& lim) {
    if (next_lock_deadline() > now_ms) return 0;
    int n = 0;
    int64_t bound = INT64_MAX;
    for (auto& r : records_) {
        if (r.state != record_state::acquired) continue;
        if (r.lock_deadline_ms <= now_ms) {
            release(r, lim);
            ++n;
        } else {
            bound = std::min(bound, r.lock_deadline_ms);
        }
    }
    lock_bound_ = bound;
    advance_start();
    return n;
}

int64_t partition_state::next_lock_deadline() const {
    return count(record_state::acquired) > 0 ? lock_bound_ : INT64_MAX;
}

void partition_state::reset(int64_t offset) {
    records_.clear();
    counts_ = {};
    start_ = end_ = offset;
}

void partition_state::drop_front(size_t n) {
    for (size_t i = 0; i < n; ++i) --counts_[size_t(records_[i].state)];
    records_.erase(records_.begin(), records_.begin() + std::ptrdiff_t(n));
    start_ += int64_t(n);
}

void partition_state::advance_to(int64_t log_start_offset) {
    if (log_start_offset <= start_) return;
    if (log_start_offset >= end_) {
        reset(log_start_offset);
        return;
    }
    drop_front(size_t(log_start_offset - start_));
}

void partition_state::advance_start() {
    size_t n = 0;
    while (n < records_.size() &&
           (records_[n].state == record_state::acknowledged || records_[n].state == record_state::archived))
        ++n;
    if (n > 0) drop_front(n);
    if (records_.empty()) start_ = end_;
}

std::vector<state_batch> partition_state::snapshot() const {
    std::vector<state_batch> out;
    int64_t o = start_;
    for (auto& r : records_) {
        auto st = r.state == record_state::acquired ? record_state::available : r.state;
        if (!out.empty() && out.back().last_offset == o - 1 && out.back().state == st &&
            out.back().delivery_count == r.delivery_count)
            out.back().last_offset = o;
        else
            out.push_back({o, o, st, r.delivery_count});
        ++o;
    }
    return out;
}

}  // namespace ketch::share
