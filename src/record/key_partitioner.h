// Kafka's default partitioner for keyed records (the Java client's
// BuiltInPartitioner.partitionForKey): murmur2 of the key, positive, modulo
// the partition count. So a record that `ketch produce -k K` or the console
// writes with key K lands where a Java producer would put K.
#pragma once

#include <cstdint>

#include "base/bytes.h"

namespace ketch::record {

int32_t murmur2(byte_view data);
int32_t partition_for_key(byte_view key, int32_t partitions);

}  // namespace ketch::record
