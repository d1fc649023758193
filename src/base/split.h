// Splitting a list at a separator character, as the command-line flags,
// configs and URL paths write lists.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ketch {

// The pieces of `s` between the separators, empty ones left out:
// split_nonempty("a,,b,", ',') is {"a", "b"}, split_nonempty("", ',') is {}.
inline std::vector<std::string> split_nonempty(std::string_view s, char sep) {
    std::vector<std::string> out;
    while (!s.empty()) {
        const auto at = s.find(sep);
        if (at != 0) out.emplace_back(s.substr(0, at));
        if (at == std::string_view::npos) break;
        s.remove_prefix(at + 1);
    }
    return out;
}

}  // namespace ketch
