#include "objstore/list_xml.h"

#include <cstdio>
#include <ctime>

namespace ketch::objstore {

namespace {

// The text of the first <tag>...</tag> in `xml` from `from`, entities decoded;
// nullopt if there is none.
std::optional<std::string> element(std::string_view xml, std::string_view tag) {
    std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
    auto b = xml.find(open);
    if (b == std::string_view::npos) return std::nullopt;
    b += open.size();
    auto e = xml.find(close, b);
    if (e == std::string_view::npos) return std::nullopt;
    std::string out;
    for (size_t i = b; i < e; ++i) {
        if (xml[i] != '&') {
            out += xml[i];
            continue;
        }
        static constexpr std::pair<std::string_view, char> entities[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool known = false;
        for (auto& [name, c] : entities)
            if (xml.substr(i, name.size()) == name) {
                out += c;
                i += name.size() - 1;
                known = true;
                break;
            }
        if (!known) return std::nullopt;
    }
    return out;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_iso8601(std::string_view s) {
    std::tm tm{};
    int consumed = 0;
    std::string text(s);
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                    &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
        consumed != 19)
        return std::nullopt;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::optional<object_page> parse_list_objects(std::string_view xml) {
    object_page page;
    for (auto at = xml.find("<Contents>"); at != std::string_view::npos; at = xml.find("<Contents>", at + 1)) {
        auto end = xml.find("</Contents>", at);
        if (end == std::string_view::npos) return std::nullopt;
        auto block = xml.substr(at, end - at);
        auto key = element(block, "Key");
        auto modified = element(block, "LastModified");
        auto size = element(block, "Size");
        if (!key || !modified || !size) return std::nullopt;
        auto t = parse_iso8601(*modified);
        if (!t || size->empty() || size->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
        page.objects.push_back({*key, std::stoull(*size), *t});
    }
    if (element(xml, "IsTruncated").value_or("false") == "true") {
        page.next_continuation = element(xml, "NextContinuationToken").value_or("");
        if (page.next_continuation.empty()) return std::nullopt;
    }
    return page;
}

}  // namespace ketch::objstore
