// TxnOffsetCommit as the group coordinator sees it (domain types).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "group/api.h"

namespace ketch::group {

// The member: v3+; before, generation -1 and member id "".
struct txn_commit_args : member_ref {
    std::string transactional_id;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    std::vector<commit_topic> topics;
    // From begin_txn_offsets_verification, taken before the transaction
    // coordinator verified the producer (Kafka's VerificationGuard): the
    // offsets are refused (INVALID_TXN_STATE) if the producer's transaction
    // ended since. Unset: not checked (tests of the group rules alone).
    std::optional<uint64_t> verification_guard;
};

}  // namespace ketch::group
