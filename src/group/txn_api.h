// TxnOffsetCommit as the group coordinator sees it (domain types).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "group/api.h"

namespace ketch::group {

struct txn_commit_args {
    std::string transactional_id;
    std::string group_id;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t generation_id = -1;  // v3+; -1 before
    std::string member_id;       // v3+; "" before
    std::optional<std::string> group_instance_id;
    std::vector<commit_topic> topics;
    // From begin_txn_offsets_verification, taken before the transaction
    // coordinator verified the producer (Kafka's VerificationGuard): the
    // offsets are refused (INVALID_TXN_STATE) if the producer's transaction
    // ended since. Unset: not checked (tests of the group rules alone).
    std::optional<uint64_t> verification_guard;
};

}  // namespace ketch::group
