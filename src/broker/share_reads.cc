#include "broker/share_reads.h"

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>

#include "base/clock.h"
#include "broker/partition_requests.h"
#include "io/file.h"
#include "record/aborted_batches.h"
#include "record/batch_header.h"

namespace ketch::broker {

namespace {

struct batch_span {
    size_t slice = 0;             // which slice of the read
    uint64_t begin = 0, end = 0;  // byte positions in that slice
    int64_t first = 0, last = 0;
    bool aborted = false;  // a data batch of an aborted transaction (read_committed)
};

// Reads batch headers (not the records) from a window of the file, so that
// small batches cost one pread per window and a large one one pread.
class header_reader {
public:
    std::optional<record::batch_header> at(const io::file& f, uint64_t pos, uint64_t available) {
        if (&f != file_ || pos < pos_ || pos + record::k_batch_header_size > pos_ + size_) {
            size_ = size_t(std::min<uint64_t>(available, k_window));
            if (buf_.size() < size_) buf_.resize(k_window);
            if (!f.read_exact(pos, std::span<uint8_t>(buf_.data(), size_)))
                throw std::runtime_error("reading the log's batch headers");
            file_ = &f;
            pos_ = pos;
        }
        return record::parse_batch_header(byte_view(buf_).subspan(size_t(pos - pos_), record::k_batch_header_size));
    }

private:
    static constexpr size_t k_window = 16 * 1024;
    bytes buf_;
    const io::file* file_ = nullptr;
    uint64_t pos_ = 0;
    size_t size_ = 0;
};

// The whole batches of `r` (the last may be cut short by max_bytes) up to
// the one holding `up_to`: only their headers are read.
std::vector<batch_span> whole_batches(const log::read_result& r, int64_t up_to, record::aborted_batches& aborted) {
    std::vector<batch_span> out;
    header_reader headers;
    for (size_t i = 0; i < r.slices.size(); ++i) {
        const auto& s = r.slices[i];
        uint64_t pos = 0;
        while (pos + record::k_batch_header_size <= s.length) {
            auto h = headers.at(*s.file, s.position + pos, s.length - pos);
            if (!h || h->batch_length <= 0 || pos + h->total_size() > s.length) return out;
            out.push_back({i, pos, pos + h->total_size(), h->base_offset, h->last_offset(), aborted.skip(*h)});
            pos += h->total_size();
            if (h->last_offset() >= up_to) return out;
        }
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
    const int64_t now = wall_ms();
    auto at = ps.list_offset(p, duration_ms >= now ? 0 : now - duration_ms, false);
    return at.error == error_code::none && at.offset >= 0 ? at.offset : end;
}

bool overlaps(const batch_span& s, const std::vector<share::acquired_range>& a) {
    for (auto& r : a)
        if (r.first_offset <= s.last && r.last_offset >= s.first) return true;
    return false;
}

// The bytes of the batches from spans[from] to spans[to] (inclusive), as
// Fetch sends them: file chunks the connection sends itself, else (an
// in-process caller) one copy of exactly those bytes.
kafka::records kept_records(request_context& ctx, const log::read_result& r, const std::vector<batch_span>& spans,
                            size_t from, size_t to) {
    struct piece {
        const log::file_slice* slice;
        uint64_t begin, end;
    };
    std::vector<piece> pieces;
    for (size_t i = from; i <= to; ++i) {
        const auto& s = spans[i];
        if (!pieces.empty() && pieces.back().slice == &r.slices[s.slice] && pieces.back().end == s.begin)
            pieces.back().end = s.end;
        else
            pieces.push_back({&r.slices[s.slice], s.begin, s.end});
    }
    kafka::records recs;
    bool zero_copy = ctx.conn.file_chunks_ok;
    for (auto& p : pieces) zero_copy &= p.slice->file->native_handle() >= 0;
    if (zero_copy) {
        for (auto& p : pieces)
            recs.chunks.push_back({p.slice->file->native_handle(), int64_t(p.slice->position + p.begin),
                                   uint32_t(p.end - p.begin), p.slice->file, p.slice->file_end});
        return recs;
    }
    // Not a plain file (tests' in-memory fs) or not a plaintext socket: copy.
    size_t total = 0;
    for (auto& p : pieces) total += size_t(p.end - p.begin);
    bytes copy(total);
    size_t at = 0;
    for (auto& p : pieces) {
        auto n = size_t(p.end - p.begin);
        if (!p.slice->file->read_exact(p.slice->position + p.begin, std::span<uint8_t>(copy.data() + at, n)))
            throw std::runtime_error("reading the log");
        at += n;
    }
    recs.data = shared_bytes(std::move(copy));
    return recs;
}

// Acquires for `member` what the batches read from `from` hold (at most
// max_records, nothing past `up_to`) and keeps the batches that hold it.
void acquire_read(request_context& ctx, const std::string& group, const std::string& member,
                  const share::topic_partition& tp, const log::read_result& r, int64_t up_to, int32_t max_records,
                  bool batch_optimized, share_read& out) {
    auto aborted = aborted_of(r);
    auto spans = whole_batches(r, up_to, aborted);
    if (spans.empty()) return;
    std::vector<share::offset_range> archive;
    std::vector<int64_t> ends;
    for (auto& s : spans) {
        if (s.aborted) archive.push_back({s.first, s.last});
        if (batch_optimized) ends.push_back(s.last);
    }
    out.acquired = ctx.broker.shares->acquire(group, member, tp, spans.front().first, spans.back().last, max_records,
                                              archive, ends);
    if (out.acquired.empty()) return;
    // Only the batches holding acquired records go back.
    size_t first = SIZE_MAX, last = 0;
    for (size_t i = 0; i < spans.size(); ++i) {
        if (!overlaps(spans[i], out.acquired)) continue;
        first = std::min(first, i);
        last = i;
    }
    out.recs = kept_records(ctx, r, spans, first, last);
    out.bytes = out.recs.size();
}

}  // namespace

share_read read_share_partition(request_context& ctx, const std::string& group, const std::string& member,
                                const share::topic_partition& tp, uint64_t max_bytes, int32_t max_records,
                                bool batch_optimized) {
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
    // Cluster mode: the partition's leader serves its share-partitions, while
    // it holds their lease (share/share_leases.cc).
    if (!shares.hold(tp)) {
        out.error = error_code::not_leader_or_follower;
        return out;
    }
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
    auto range = shares.fetch_range(group, tp, earliest.offset, latest.offset, max_records, by_time);
    if (range.first < 0 || range.first >= bound.offset) return out;
    log::read_options ro;
    ro.min_one_batch = true;
    ro.read_committed = how.read_committed;
    // The read locates the bytes; only the batch headers up to range.last are
    // read here, and the kept batches go out as the file's own bytes.
    auto r = ps.read(*part, range.first, max_bytes, ro);
    if (!r.ok()) {
        out.error = r.error();
        return out;
    }
    acquire_read(ctx, group, member, tp, *r, range.last, max_records, batch_optimized, out);
    return out;
}

}  // namespace ketch::broker
