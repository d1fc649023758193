// The appends of one Produce request (handlers/00_produce.cc): on the
// reactor for a small request, on the broker's append pool for a large one,
// one job per partition, so that validating and copying megabytes does not
// hold up the other connections of the reactor (Kafka's network threads
// read on while its request handler threads append) and the partitions of
// one request are appended on every core at once.
#pragma once

#include <cstddef>
#include <vector>

#include "base/bytes.h"
#include "broker/async.h"
#include "broker/broker_context.h"
#include "partition/service.h"

namespace ketch::broker {

// Records of a request from this many bytes on go to the append pool: below
// it the hop to another thread and back costs more than the append (the
// Java producer's requests carry 16 KiB batches; franz-go's, 1 MiB ones).
inline constexpr size_t k_pooled_append_bytes = 256 * 1024;

struct append_job {
    const meta::resolved_topic* topic = nullptr;
    int32_t partition = 0;
    byte_view records;
    bool allow_zstd = false;
    partition::append_outcome out;  // set by run_appends
};

// Runs every job's partition::service::append and sets its `out`; resumes on
// the caller's executor. A job that throws is answered UNKNOWN_SERVER_ERROR.
// `may_pool` false keeps them on the reactor (a request_percentage quota
// counts the handler's own time, which a pool job is not).
boost::asio::awaitable<void> run_appends(broker_context& b, std::vector<append_job>& jobs, bool may_pool);

}  // namespace ketch::broker
