// Pieces the error builders share (the `<api>_error` at the end of each
// handler file): a row carrying the error, and the responses that repeat it
// for every partition, topic, group or config resource of the request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "broker/error_answer.h"

namespace ketch::broker {

// Appends a row carrying the error code to `rows`; returns it.
template <class Rows>
auto& error_row(Rows& rows, const error_answer& e) {
    auto& row = rows.emplace_back();
    row.error_code = e.code;
    return row;
}

// For each of `topics`, a row in `rows` named for it (with its topic id where
// the API has one) holding a row with the error for each of its partitions
// (given as partition rows or as indexes); fill(row) sets what else the API's
// partition row says (DeleteRecords, DescribeProducers, OffsetFetch v0-1,
// AlterPartitionReassignments).
template <class Rows, class Topics, class Fill>
void partition_error_rows(Rows& rows, const Topics& topics, const error_answer& e, Fill&& fill) {
    for (auto& t : topics) {
        auto& rt = rows.emplace_back();
        rt.name = t.name;
        if constexpr (requires { rt.topic_id = t.topic_id; }) rt.topic_id = t.topic_id;
        auto add = [&](int32_t partition) {
            auto& rp = error_row(rt.partitions, e);
            rp.partition_index = partition;
            fill(rp);
        };
        if constexpr (requires { t.partition_indexes; })
            for (int32_t p : t.partition_indexes) add(p);
        else
            for (auto& p : t.partitions) add(p.partition_index);
    }
}

// The row of `topic` in `rows`, appended (named) the first time: rows grouped
// by topic, in request order (AddPartitionsToTxn, TxnOffsetCommit).
template <class Rows>
auto& topic_row(Rows& rows, const std::string& topic) {
    for (auto& r : rows)
        if (r.name == topic) return r;
    auto& r = rows.emplace_back();
    r.name = topic;
    return r;
}

// Every partition of the request's topics with the error and nothing else:
// ListOffsets, OffsetCommit, TxnOffsetCommit.
template <class Resp, class Req>
Resp per_partition_error(const Req& req, const error_answer& e) {
    Resp resp;
    partition_error_rows(resp.topics, req.topics, e, [](auto&) {});
    return resp;
}

// Every topic of the request by name with the error and its message:
// CreateTopics, CreatePartitions.
template <class Rows, class Topics>
void topic_error_rows(Rows& rows, const Topics& topics, const error_answer& e) {
    for (auto& t : topics) {
        auto& row = error_row(rows, e);
        row.name = t.name;
        set_message(row.error_message, e.message);
    }
}

// Every group of the request with the error and its message: the share and
// streams groups' Describe (getErrorResponse).
template <class Resp>
Resp per_group_error(const std::vector<std::string>& group_ids, const error_answer& e) {
    Resp resp;
    for (auto& g : group_ids) {
        auto& row = error_row(resp.groups, e);
        row.group_id = g;
        row.error_message = e.message;
    }
    return resp;
}

// Every config resource of the request with the error and its message:
// AlterConfigs and IncrementalAlterConfigs (getErrorResponse).
template <class Resp, class Req>
Resp per_resource_error(const Req& req, const error_answer& e) {
    Resp resp;
    for (auto& res : req.resources) {
        auto& row = error_row(resp.responses, e);
        set_message(row.error_message, e.message);
        row.resource_type = res.resource_type;
        row.resource_name = res.resource_name;
    }
    return resp;
}

}  // namespace ketch::broker
