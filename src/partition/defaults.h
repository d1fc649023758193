// The one default of each partition setting the broker's flags, the broker
// config and the partition service share. Everything that needs one of these
// values names it here; the log keeps a fallback of its own for standalone
// use (tests), pinned equal by the static_asserts in partition/settings.cc.
#pragma once

#include <cstdint>

namespace ketch::partition {

// --flush-ms: data appended with acks=0/1 is fdatasync'ed at least this often
// (a topic's flush.ms may only lower it). Kafka's default is "never" (it
// relies on replication); a single node cannot.
inline constexpr int64_t k_default_flush_ms = 1000;

// --producer-id-expiration-ms (producer.id.expiration.ms): an idle producer's
// sequence state is forgotten after this long (Kafka's default, one day).
inline constexpr int64_t k_default_producer_id_expiration_ms = 86'400'000;

// Every partition's leader epoch on this single broker.
inline constexpr int32_t k_leader_epoch = 0;

}  // namespace ketch::partition
