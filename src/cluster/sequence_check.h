// Idempotence of a producer's batch against what PostgreSQL holds for its
// partition (cluster mode's commit transaction, docs/design/cluster.md): the
// rules of the local log (docs/design/producer_state.md; Kafka 4.3.1
// ProducerAppendInfo / ProducerStateEntry), as a pure function so that the
// unit tests need no database.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ketch::cluster {

// One of the last batches (at most k_kept_batches) a producer committed to a partition.
struct committed_batch {
    int16_t producer_epoch = 0;
    int32_t first_seq = 0;
    int32_t last_seq = 0;
    int64_t base_offset = 0;
    int64_t last_offset = 0;
};

inline constexpr size_t k_kept_batches = 5;

struct sequence_verdict {
    enum kind { append, duplicate, invalid_producer_epoch, out_of_order_sequence } what = append;
    int64_t base_offset = -1;  // duplicate: the original batch's
    int64_t last_offset = -1;
};

// `history`: the producer's batches on the partition, oldest first (empty:
// the partition knows nothing of it).
sequence_verdict check_sequence(const std::vector<committed_batch>& history, int16_t epoch, int32_t first_seq,
                                int32_t last_seq);

}  // namespace ketch::cluster
