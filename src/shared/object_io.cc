#include "shared/object_io.h"

#include <map>
#include <thread>

#include "log/producer_state.h"
#include "objstore/retry.h"
#include "record/batch_header.h"

namespace ketch::shared {

result<built_object, std::string> build_object(const std::vector<pending_batch>& batches) {
    built_object out;
    for (auto& p : batches) {
        auto h = record::parse_batch_header(p.batch);
        if (!h) return failure{std::string("a batch shorter than its header")};
        cluster::staged_batch s{p.tp, h->last_offset_delta + 1, out.body.size(), uint32_t(p.batch.size()),
                                h->max_timestamp};
        if (h->producer_id >= 0) {
            s.producer_id = h->producer_id;
            s.producer_epoch = h->producer_epoch;
            s.base_sequence = h->base_sequence;
            s.transactional = h->is_transactional() && !h->is_control();
            s.marker = p.marker;
            if (p.marker >= 0)
                if (auto m = log::decode_txn_marker(p.batch)) s.coordinator_epoch = m->coordinator_epoch;
        }
        out.batches.push_back(std::move(s));
        out.body.append(reinterpret_cast<const char*>(p.batch.data()), p.batch.size());
    }
    return out;
}

result<std::vector<cluster::batch_outcome>, std::string> write_flush(objstore::s3_client& s3,
                                                                     cluster::pg_connection& pg, int32_t node_id,
                                                                     const std::string& object_key,
                                                                     const std::vector<pending_batch>& batches) {
    auto obj = build_object(batches);
    if (!obj.ok()) return failure{obj.error()};
    auto sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
    auto put = objstore::with_retries(objstore::retry_policy{}, sleep,
                                      [&] { return s3.put_object(object_key, obj->body, true); });
    if (!put.ok()) return failure{"PUT " + object_key + ": " + put.error().describe()};
    auto committed = cluster::commit_flush(pg, {object_key, obj->body.size(), node_id, std::move(obj->batches)});
    if (!committed.ok()) return failure{"commit of " + object_key + ": " + committed.error().message};
    return std::move(*committed);
}

result<bytes, std::string> fetch_indexed(objstore::s3_client& s3, const std::vector<cluster::indexed_batch>& found,
                                         int32_t leader_epoch, io_throttle* io) {
    // Each object's span of wanted bytes, fetched once.
    std::map<std::string, std::pair<uint64_t, uint64_t>> spans;
    for (auto& b : found) {
        auto [it, fresh] = spans.try_emplace(b.object_key, b.byte_offset, b.byte_offset + b.byte_length);
        if (!fresh) {
            it->second.first = std::min(it->second.first, b.byte_offset);
            it->second.second = std::max(it->second.second, b.byte_offset + b.byte_length);
        }
    }
    std::map<std::string, std::string> fetched;
    for (auto& [key, span] : spans) {
        auto got = s3.get_object(key, std::pair<uint64_t, uint64_t>{span.first, span.second - 1});
        if (!got.ok()) return failure{"GET " + key + ": " + got.error().describe()};
        if (got->size() != span.second - span.first) return failure{"GET " + key + ": a short answer"};
        if (io) io->charge(got->size());
        fetched[key] = std::move(*got);
    }
    bytes out;
    for (auto& b : found) {
        const std::string& body = fetched[b.object_key];
        size_t at = out.size();
        auto* from = reinterpret_cast<const uint8_t*>(body.data()) + (b.byte_offset - spans[b.object_key].first);
        out.insert(out.end(), from, from + b.byte_length);
        record::set_base_offset(out.data() + at, b.base_offset);
        record::set_partition_leader_epoch(out.data() + at, leader_epoch);
    }
    return out;
}

result<bytes, std::string> read_batches(objstore::s3_client& s3, cluster::pg_connection& pg,
                                        const cluster::partition_key& tp, int64_t offset, uint64_t max_bytes,
                                        int32_t leader_epoch) {
    auto found = cluster::find_batches(pg, tp, offset, max_bytes);
    if (!found.ok()) return failure{"index: " + found.error().message};
    return fetch_indexed(s3, *found, leader_epoch);
}

}  // namespace ketch::shared
