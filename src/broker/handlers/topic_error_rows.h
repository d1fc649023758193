// Error rows by topic for the error builders whose rows differ from
// error_rows.h's per_partition_error: partitions given as indexes or with
// more to set (DeleteRecords, DescribeProducers, OffsetFetch v0-1,
// AlterPartitionReassignments), and topics answered by name with the
// message (CreateTopics, CreatePartitions).
#pragma once

#include <cstdint>

#include "broker/handlers/error_rows.h"

namespace ketch::broker {

// For each of `topics`, a row in `rows` named for it (with its topic id where
// the API has one) holding a row with the error for each of its partitions
// (given as partition rows or as indexes); fill(row) sets what else the API's
// partition row says.
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

}  // namespace ketch::broker
