// How the console shows a key, a header value or a value: its size, and as
// much of text (valid UTF-8), JSON (when it parses) and hex as applies, each
// cut at a bound so one huge record cannot make a huge answer.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "base/bytes.h"

namespace ketch::console {

inline constexpr size_t k_shown_bytes = 64 * 1024;

// null for a null field; else {"size", "text"?, "json"?, "hex", "truncated"}.
nlohmann::json format_bytes(const std::optional<byte_view>& b);

bool valid_utf8(byte_view b);

}  // namespace ketch::console
