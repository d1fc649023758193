// Feature levels (KIP-584) as ApiVersions reports them and UpdateFeatures
// checks them: the levels Kafka 4.3.1 reports by default, for what ketch
// does. metadata.version 4.3 (level 30), kraft.version 1 and ELR 1 describe
// the single node; the others name behaviour ketch has:
//   group.version 1       KIP-848 consumer groups (ConsumerGroupHeartbeat)
//   share.version 1       KIP-932 share groups, on by default since Kafka 4.2
//   streams.version 1     KIP-1071 streams groups (StreamsVersion SV_1, the
//                         default from metadata.version 4.2-IV1 on)
//   transaction.version 2 KIP-890: EndTxn v5 bumps the epoch, Produce v12+ and
//                         TxnOffsetCommit v5 add partitions implicitly
// The levels are fixed: UpdateFeatures validates a change as Kafka does and
// then refuses it (docs/compatibility.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace ketch::broker {

struct feature_level {
    std::string_view name;
    int16_t min, max, finalized;  // finalized 0: supported, not finalized
};

inline constexpr feature_level k_features[] = {
    {"group.version", 0, 1, 1},
    {"kraft.version", 0, 1, 1},
    {"metadata.version", 7, 30, 30},
    {"share.version", 0, 1, 1},
    {"streams.version", 0, 1, 1},
    {"transaction.version", 0, 2, 2},
    {"eligible.leader.replicas.version", 0, 1, 1},
};

// The order in which Kafka 4.3.1 lists the finalized levels.
inline constexpr std::string_view k_finalized_order[] = {
    "group.version",
    "kraft.version",
    "share.version",
    "metadata.version",
    "streams.version",
    "transaction.version",
    "eligible.leader.replicas.version",
};

inline constexpr int64_t k_features_epoch = 1;

}  // namespace ketch::broker
