// Pieces the error builders share (the `<api>_error` at the end of each
// handler file): a row carrying the error, and the response that repeats it
// for every partition of the request's topics.
#pragma once

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

// Every partition of the request's topics, by name (and topic id where the
// API has one), with the error: ListOffsets, OffsetCommit, TxnOffsetCommit.
template <class Resp, class Req>
Resp per_partition_error(const Req& req, const error_answer& e) {
    Resp resp;
    for (auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        if constexpr (requires { rt.topic_id = t.topic_id; }) rt.topic_id = t.topic_id;
        for (auto& p : t.partitions) error_row(rt.partitions, e).partition_index = p.partition_index;
    }
    return resp;
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
