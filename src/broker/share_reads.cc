#include "broker/share_reads.h"

#include "broker/partition_requests.h"
#include "record/batch_header.h"

namespace ketch::broker {

namespace {

struct batch_span {
    size_t begin = 0, end = 0;  // byte positions
    int64_t first = 0, last = 0;
};

// The whole batches of `b` (the last may be cut short by max_bytes).
std::vector<batch_span> whole_batches(const bytes& b) {
    std::vector<batch_span> out;
    size_t pos = 0;
    while (pos + record::k_batch_header_size <= b.size()) {
        auto h = record::parse_batch_header(byte_view(b).subspan(pos));
        if (!h || h->batch_length <= 0 || pos + h->total_size() > b.size()) break;
        out.push_back({pos, pos + h->total_size(), h->base_offset, h->last_offset()});
        pos += h->total_size();
    }
    return out;
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
    auto earliest = ps.list_offset(*part, partition::k_earliest_timestamp, false);
    auto latest = ps.list_offset(*part, partition::k_latest_timestamp, false);
    if (earliest.error != error_code::none || latest.error != error_code::none) {
        out.error = earliest.error != error_code::none ? earliest.error : latest.error;
        return out;
    }
    int64_t from = ctx.broker.shares->fetch_offset(group, tp, earliest.offset, latest.offset);
    if (from < 0 || from >= latest.offset) return out;
    log::read_options ro;
    ro.min_one_batch = true;
    auto r = ps.read(*part, from, max_bytes, ro);
    if (!r.ok()) {
        out.error = r.error();
        return out;
    }
    auto copy = log::read_bytes(*r);
    if (!copy.ok()) throw std::runtime_error("reading the log: " + copy.error().message);
    auto spans = whole_batches(*copy);
    if (spans.empty()) return out;
    out.acquired = ctx.broker.shares->acquire(group, member, tp, spans.front().first, spans.back().last, max_records);
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
