// Transactions as the log cleaner sees them. ketch has no transaction index
// file: one header scan of the log (control batches read in full) yields what
// Kafka keeps in its .txnindex and producer state:
//   * the aborted transactions (producer, first offset, abort marker offset);
//   * the last record of every producer (Kafka's lastRecordsOfActiveProducers:
//     the batch holding the producer's last data offset, or its last marker
//     when it has no data under its current epoch), which cleaning keeps;
//   * the first offset of a still-open transaction (the cleaner never cleans
//     at or past the last stable offset).
// cleaned_txn_state is Kafka's CleanedTransactionMetadata: it decides, batch
// by batch, whether data is aborted and whether a marker may be removed.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/bytes.h"
#include "log/log_error.h"
#include "log/segment.h"
#include "record/batch_header.h"

namespace ketch::log {

// aborted_txn: log/producer_state.h (the .txnindex entry; last_offset is the ABORT marker's offset).

struct producer_last_record {
    std::optional<int64_t> last_data_offset;
    int16_t producer_epoch = -1;
};

struct txn_scan {
    std::vector<aborted_txn> aborted;  // by first offset
    std::unordered_map<int64_t, producer_last_record> producers;
    int64_t first_unstable_offset = INT64_MAX;
};

enum class marker_type { none, abort, commit, other };
// The type of a control batch's first record (none for an emptied batch).
marker_type read_marker_type(byte_view batch);

log_result<txn_scan> scan_transactions(const std::vector<std::shared_ptr<segment>>& segments);

class cleaned_txn_state {
public:
    explicit cleaned_txn_state(const std::vector<aborted_txn>& aborted);
    // A data batch: true when it belongs to an aborted transaction.
    bool on_batch_read(const record::batch_header& h);
    // A control batch: true when the marker may be discarded (an ABORT whose
    // data is all gone, a COMMIT none of whose data was seen, an empty batch).
    bool on_control_batch_read(const record::batch_header& h, marker_type type);

private:
    void consume_up_to(int64_t offset);
    std::deque<aborted_txn> pending_;
    std::unordered_set<int64_t> ongoing_committed_;
    struct ongoing_abort {
        bool saw_batch = false;
    };
    std::unordered_map<int64_t, ongoing_abort> ongoing_aborted_;
};

}  // namespace ketch::log
