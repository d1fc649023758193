#include "broker/share_reads.h"

#include <chrono>
#include <functional>

#include "broker/partition_requests.h"
#include "record/aborted_batches.h"
#include "record/batch_header.h"

namespace ketch::broker {

namespace {

struct batch_span {
    size_t begin = 0, end = 0;  // byte positions
    int64_t first = 0, last = 0;
    bool aborted = false;  // a data batch of an aborted transaction (read_committed)
};

// The whole batches of `b` (the last may be cut short by max_bytes).
std::vector<batch_span> whole_batches(const bytes& b, record::aborted_batches& aborted) {
    std::vector<batch_span> out;
    size_t pos = 0;
    while (pos + record::k_batch_header_size <= b.size()) {
        auto h = record::parse_batch_header(byte_view(b).subspan(pos));
        if (!h || h->batch_length <= 0 || pos + h->total_size() > b.size()) break;
        out.push_back({pos, pos + h->total_size(), h->base_offset, h->last_offset(), aborted.skip(*h)});
        pos += h->total_size();
    }
    return out;
}

record::aborted_batches aborted_of(const log::read_result& r) {
    if (!r.aborted || r.aborted->empty()) return {};
    std::vector<std::pair<int64_t, int64_t>> list;
    for (auto& a : *r.aborted) list.emplace_back(a.first_offset, a.producer_id);
    return record::aborted_batches(std::move(list));
}

// share.auto.offset.reset by_duration: the first offset with a timestamp at
// or after now - d (ShareFetchUtils.offsetForTimestamp, read_uncommitted).
// Kafka fails the share-partition's initialization (OFFSET_NOT_AVAILABLE,
// retried at the next fetch) while no record is that new; ketch starts at
// the end, where the next such record will be.
int64_t offset_by_duration(partition::service& ps, const partition::partition_handle& p, int64_t duration_ms,
                           int64_t end) {
    const int64_t now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    auto at = ps.list_offset(p, duration_ms >= now ? 0 : now - duration_ms, false);
    return at.error == error_code::none && at.offset >= 0 ? at.offset : end;
}

bool overlaps(const batch_span& s, const std::vector<share::acquired_range>& a) {
    for (auto& r : a)
        if (r.first_offset <= s.last && r.last_offset >= s.first) return true;
    return false;
}

}  // namespace

share_read read_share_partition(request_context& ctx, const std::string& group, const std::string& member,
                                const share::topic_partition& tp, uint64_t max_bytes, int32_t max_records) {
    share_read out;
    auto acc = access_topic(ctx, security::acl_operation::read, tp.topic_id);
    if (acc.topic) out.topic = acc.topic->t.name;
    auto part = open_partition(ctx, acc, tp.partition);
    if (!part.ok()) {
        out.error = part.error();
        return out;
    }
    auto& ps = ctx.broker.partitions;
    auto& shares = *ctx.broker.shares;
    const auto how = shares.reading(group);
    auto earliest = ps.list_offset(*part, partition::k_earliest_timestamp, false);
    auto latest = ps.list_offset(*part, partition::k_latest_timestamp, false);
    // read_committed reads up to the last stable offset (FetchIsolation.TXN_COMMITTED).
    auto bound = how.read_committed ? ps.list_offset(*part, partition::k_latest_timestamp, true) : latest;
    for (auto* a : {&earliest, &latest, &bound})
        if (a->error != error_code::none) {
            out.error = a->error;
            return out;
        }
    std::function<int64_t()> by_time;
    if (how.reset_by_duration_ms)
        by_time = [&] { return offset_by_duration(ps, *part, *how.reset_by_duration_ms, latest.offset); };
    int64_t from = shares.fetch_offset(group, tp, earliest.offset, latest.offset, by_time);
    if (from < 0 || from >= bound.offset) return out;
    log::read_options ro;
    ro.min_one_batch = true;
    ro.read_committed = how.read_committed;
    auto r = ps.read(*part, from, max_bytes, ro);
    if (!r.ok()) {
        out.error = r.error();
        return out;
    }
    auto copy = log::read_bytes(*r);
    if (!copy.ok()) throw std::runtime_error("reading the log: " + copy.error().message);
    auto aborted = aborted_of(*r);
    auto spans = whole_batches(*copy, aborted);
    if (spans.empty()) return out;
    std::vector<share::offset_range> archive;
    for (auto& s : spans)
        if (s.aborted) archive.push_back({s.first, s.last});
    out.acquired = shares.acquire(group, member, tp, spans.front().first, spans.back().last, max_records, archive);
    if (out.acquired.empty()) return out;
    // Only the batches holding acquired records go back.
    size_t begin = SIZE_MAX, end = 0;
    for (auto& s : spans) {
        if (!overlaps(s, out.acquired)) continue;
        begin = std::min(begin, s.begin);
        end = std::max(end, s.end);
    }
    bytes kept(copy->begin() + std::ptrdiff_t(begin), copy->begin() + std::ptrdiff_t(end));
    out.bytes = kept.size();
    out.recs = kafka::records(shared_bytes(std::move(kept)));
    return out;
}

}  // namespace ketch::broker
