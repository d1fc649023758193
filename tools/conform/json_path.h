// Paths into a JSON response ("/topics/0/error_code") and patterns over
// them: segments separated by '/', "*" matches one segment, "**" matches any
// number (zero included). "/" alone is the root.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ketch::conform {

std::vector<std::string> split_path(std::string_view path);
bool path_matches(std::string_view pattern, std::string_view path);
// A glob over one name (scenario or step id): "*" matches any run of characters.
bool name_matches(std::string_view pattern, std::string_view name);

}  // namespace ketch::conform
