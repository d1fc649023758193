#include "cluster/sequence_check.h"

#include <limits>

namespace ketch::cluster {

namespace {

// The sequence after `last`, wrapping from INT32_MAX to 0 (ProducerStateEntry).
bool in_sequence(int32_t last, int32_t next) {
    return last == std::numeric_limits<int32_t>::max() ? next == 0 : next == last + 1;
}

}  // namespace

sequence_verdict check_sequence(const std::vector<committed_batch>& history, int16_t epoch, int32_t first_seq,
                                int32_t last_seq) {
    if (history.empty()) return {};  // any sequence starts a producer the partition does not know
    const committed_batch& last = history.back();
    if (epoch < last.producer_epoch) return {sequence_verdict::invalid_producer_epoch};
    for (auto& b : history)
        if (b.producer_epoch == epoch && b.first_seq == first_seq && b.last_seq == last_seq)
            return {sequence_verdict::duplicate, b.base_offset, b.last_offset};
    if (epoch > last.producer_epoch)  // a new epoch starts again at 0
        return first_seq == 0 ? sequence_verdict{} : sequence_verdict{sequence_verdict::out_of_order_sequence};
    if (!in_sequence(last.last_seq, first_seq)) return {sequence_verdict::out_of_order_sequence};
    return {};
}

}  // namespace ketch::cluster
