// fetched_records: the records of one partition of a Fetch answer, as a
// consumer sees them: batches read in order, control batches and (with
// read_committed) aborted transactions skipped, records before `from` left
// out. A partial batch at the end of the data ends it, as in Kafka's consumer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cli/format.h"
#include "protocol/messages/fetch.h"

namespace ketch::cli {

// Calls `emit` for each record at or after `from`; `emit` returns false to
// stop. Returns the next offset to fetch: past the last record emitted, or
// past the last batch read when it was skipped or read to its end. Throws
// std::runtime_error on a corrupt batch or a magic other than 2.
int64_t read_fetched(const kafka::fetch_response::partition_data& pd, const std::string& topic, int64_t from,
                     bool read_committed, const std::function<bool(const message&)>& emit);

}  // namespace ketch::cli
