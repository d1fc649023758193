#include "cli/fetched_records.h"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "record/aborted_batches.h"
#include "record/batch_header.h"
#include "record/record_reader.h"

namespace ketch::cli {

namespace {

message to_message(const std::string& topic, int32_t partition, const record::batch_header& h,
                   const record::record_view& rv) {
    message m;
    m.topic = topic;
    m.partition = partition;
    m.offset = h.base_offset + rv.offset_delta;
    m.timestamp = h.ts_type() == record::timestamp_type::log_append_time ? h.max_timestamp
                                                                         : h.base_timestamp + rv.timestamp_delta;
    if (rv.key) m.key = bytes(rv.key->begin(), rv.key->end());
    if (rv.value) m.value = bytes(rv.value->begin(), rv.value->end());
    for (auto& hv : rv.headers)
        m.headers.emplace_back(
            std::string(hv.key.begin(), hv.key.end()),
            hv.value ? std::optional<bytes>(bytes(hv.value->begin(), hv.value->end())) : std::nullopt);
    return m;
}

// Emits the records of one data batch at or after `next`; false when `emit`
// asked to stop (then `next` is past the last record emitted).
bool read_batch(byte_view batch, const record::batch_header& h, const std::string& topic, int32_t partition,
                int64_t& next, const std::function<bool(const message&)>& emit) {
    auto rd = record::record_reader::open(batch);
    if (!rd) throw std::runtime_error("cannot read a batch of " + topic + ": " + rd.error().message);
    record::record_view rv;
    while (true) {
        auto more = rd->next(rv);
        if (!more) throw std::runtime_error("corrupt record in " + topic + ": " + more.error().message);
        if (!more.value()) return true;
        if (h.base_offset + rv.offset_delta < next) continue;
        message m = to_message(topic, partition, h, rv);
        next = m.offset + 1;
        if (!emit(m)) return false;
    }
}

}  // namespace

int64_t read_fetched(const kafka::fetch_response::partition_data& pd, const std::string& topic, int64_t from,
                     bool read_committed, const std::function<bool(const message&)>& emit) {
    record::aborted_batches aborted;
    if (read_committed && pd.aborted_transactions) {
        std::vector<std::pair<int64_t, int64_t>> list;
        for (auto& a : *pd.aborted_transactions) list.emplace_back(a.first_offset, a.producer_id);
        aborted = record::aborted_batches(std::move(list));
    }
    bytes data = pd.records ? pd.records->flatten() : bytes{};
    int64_t next = from;
    size_t pos = 0;
    while (pos + record::k_log_overhead <= data.size()) {
        auto h = record::parse_batch_header(byte_view(data).subspan(pos));
        if (!h || pos + h->total_size() > data.size()) break;  // a partial batch ends the data
        byte_view batch = byte_view(data).subspan(pos, h->total_size());
        pos += h->total_size();
        if (h->magic != 2)
            throw std::runtime_error("message format v" + std::to_string(h->magic) + " is not supported");
        bool skip = aborted.skip(*h) || h->is_control();
        if (!skip && !read_batch(batch, *h, topic, pd.partition_index, next, emit)) return next;
        next = std::max(next, h->last_offset() + 1);
    }
    return next;
}

}  // namespace ketch::cli
