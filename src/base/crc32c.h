// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of a
// Kafka v2 RecordBatch. Uses the SSE4.2 crc32 instruction when the CPU has it
// (decided once, at first use) and a slicing-by-8 table otherwise.
#pragma once

#include <cstdint>

#include "base/bytes.h"

namespace ketch {

// CRC-32C of `data` (initial value 0): crc32c("123456789") == 0xE3069283.
uint32_t crc32c(byte_view data);

// Continues a CRC over more data: crc32c_extend(crc32c(a), b) == crc32c(a ++ b).
// crc32c_extend(0, x) == crc32c(x).
uint32_t crc32c_extend(uint32_t crc, byte_view data);

namespace detail {
// Both implementations, exposed so tests can compare them. They work on the
// raw CRC register (the public functions invert before and after).
// crc32c_hw must only be called when crc32c_hw_available() is true.
uint32_t crc32c_sw(uint32_t crc, const uint8_t* p, size_t n);
uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n);
bool crc32c_hw_available();
}  // namespace detail

}  // namespace ketch
