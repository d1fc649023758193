// Strong ids (issue 19): numbers of one kind the compiler keeps apart, so a
// producer id cannot be passed where a timestamp or an offset is expected, nor
// an epoch where a partition index is. Each is a plain value: explicit to
// make (`producer_id{42}`), `.value` to read, compared like its number.
// Interfaces that take several numbers of the same width adopt them first
// (txn_metadata's transitions); stored fields stay plain until the generator
// maps them (ARCHITECTURE.md: the generator applies them).
#pragma once

#include <compare>
#include <cstdint>

namespace ketch {

template <class Tag, class Rep>
struct strong_id {
    using rep = Rep;
    Rep value;

    constexpr explicit strong_id(Rep v) noexcept : value(v) {}
    friend constexpr auto operator<=>(const strong_id&, const strong_id&) = default;
};

using producer_id = strong_id<struct producer_id_tag, int64_t>;
using producer_epoch = strong_id<struct producer_epoch_tag, int16_t>;
using partition_index = strong_id<struct partition_index_tag, int32_t>;
using node_id = strong_id<struct node_id_tag, int32_t>;

}  // namespace ketch
