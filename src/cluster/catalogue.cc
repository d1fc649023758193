#include "cluster/catalogue.h"
#include "cluster/catalogue_params.h"

#include <optional>

namespace ketch::cluster {

result<std::vector<indexed_batch>, pg_error> find_batches(pg_connection& c, const partition_key& tp, int64_t offset,
                                                          uint64_t max_bytes) {
    auto rows = c.exec(
        "SELECT b.base_offset, b.last_offset, b.object_key, b.byte_offset, b.byte_length, "
        "coalesce(o.size_bytes, 0) FROM ketch_batches b LEFT JOIN ketch_objects o ON o.object_key = b.object_key "
        "WHERE b.topic_id = $1 AND b.partition = $2 AND b.last_offset >= $3 ORDER BY b.base_offset LIMIT 1000",
        with(key(tp), {std::to_string(offset)}));
    if (!rows.ok()) return failure{rows.error()};
    std::vector<indexed_batch> out;
    uint64_t bytes = 0;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        indexed_batch b{std::stoll(rows->at(i, 0)),  std::stoll(rows->at(i, 1)),           rows->at(i, 2),
                        std::stoull(rows->at(i, 3)), uint32_t(std::stoul(rows->at(i, 4))), std::stoull(rows->at(i, 5))};
        if (!out.empty() && bytes + b.byte_length > max_bytes) break;
        bytes += b.byte_length;
        out.push_back(std::move(b));
    }
    return out;
}

result<std::optional<partition_offsets>, pg_error> find_offsets(pg_connection& c, const partition_key& tp) {
    auto rows = c.exec(
        "SELECT log_start_offset, high_watermark, coalesce((SELECT min(first_offset) FROM ketch_txn_open o "
        "WHERE o.topic_id = $1 AND o.partition = $2), -1), first_dirty_offset FROM ketch_partitions "
        "WHERE topic_id = $1 AND partition = $2",
        key(tp));
    if (!rows.ok()) return failure{rows.error()};
    if (rows->rows.empty()) return std::optional<partition_offsets>{};
    auto at = [&](int column) { return std::stoll(rows->at(0, column)); };
    return std::optional<partition_offsets>{partition_offsets{at(0), at(1), at(2), at(3)}};
}

result<partition_offsets, pg_error> read_offsets(pg_connection& c, const partition_key& tp) {
    auto offsets = find_offsets(c, tp);
    if (!offsets.ok()) return failure{offsets.error()};
    return offsets->value_or(partition_offsets{});
}

result<std::vector<aborted_range>, pg_error> find_aborted(pg_connection& c, const partition_key& tp, int64_t from,
                                                          int64_t upper) {
    auto rows = c.exec(
        "SELECT producer_id, first_offset, last_offset FROM ketch_aborted_txns WHERE topic_id = $1 AND "
        "partition = $2 AND last_offset >= $3 AND first_offset < $4 ORDER BY first_offset",
        with(key(tp), {std::to_string(from), std::to_string(upper)}));
    if (!rows.ok()) return failure{rows.error()};
    std::vector<aborted_range> out;
    for (size_t i = 0; i < rows->rows.size(); ++i)
        out.push_back({std::stoll(rows->at(i, 0)), std::stoll(rows->at(i, 1)), std::stoll(rows->at(i, 2))});
    return out;
}

result<std::vector<named_partition>, pg_error> list_partitions(pg_connection& c) {
    auto rows = c.exec(
        "SELECT t.name, p.topic_id, p.partition FROM ketch_partitions p JOIN ketch_topics t ON t.topic_id = "
        "p.topic_id ORDER BY p.topic_id, p.partition");
    if (!rows.ok()) return failure{rows.error()};
    std::vector<named_partition> out;
    for (size_t i = 0; i < rows->rows.size(); ++i)
        out.push_back({rows->at(i, 0), {rows->at(i, 1), std::stoi(rows->at(i, 2))}});
    return out;
}

}  // namespace ketch::cluster
