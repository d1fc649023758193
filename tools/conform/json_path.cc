#include "json_path.h"

namespace ketch::conform {
namespace {

bool match_from(const std::vector<std::string>& pat, size_t i, const std::vector<std::string>& path, size_t j) {
    if (i == pat.size()) return j == path.size();
    if (pat[i] == "**") {
        for (size_t k = j; k <= path.size(); ++k)
            if (match_from(pat, i + 1, path, k)) return true;
        return false;
    }
    if (j == path.size()) return false;
    if (pat[i] != "*" && pat[i] != path[j]) return false;
    return match_from(pat, i + 1, path, j + 1);
}

}  // namespace

std::vector<std::string> split_path(std::string_view path) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < path.size()) {
        if (path[pos] == '/') {
            ++pos;
            continue;
        }
        size_t end = path.find('/', pos);
        if (end == std::string_view::npos) end = path.size();
        out.emplace_back(path.substr(pos, end - pos));
        pos = end;
    }
    return out;
}

bool path_matches(std::string_view pattern, std::string_view path) {
    return match_from(split_path(pattern), 0, split_path(path), 0);
}

bool name_matches(std::string_view pattern, std::string_view name) {
    if (pattern.empty()) return name.empty();
    if (pattern[0] == '*') {
        for (size_t k = 0; k <= name.size(); ++k)
            if (name_matches(pattern.substr(1), name.substr(k))) return true;
        return false;
    }
    return !name.empty() && pattern[0] == name[0] && name_matches(pattern.substr(1), name.substr(1));
}

}  // namespace ketch::conform
