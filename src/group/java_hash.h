// Java's String.hashCode and java.util.HashMap iteration order, for the one
// place where Kafka's observable answer depends on them: which protocol wins
// a tie in ClassicGroup.selectProtocol (e.g. "range" vs "cooperative-sticky"
// with one vote each).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ketch::group {

// String.hashCode() of the string Java decodes from these UTF-8 bytes
// (over UTF-16 code units; a malformed byte decodes to U+FFFD).
int32_t java_string_hash(std::string_view utf8);

// The indexes of `keys` (distinct, in insertion order) in the order a
// java.util.HashMap<String, ?> with default capacity iterates them.
std::vector<size_t> java_hash_map_order(const std::vector<std::string>& keys);

}  // namespace ketch::group
