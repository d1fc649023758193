// ListObjectsV2's answer (an XML document) read into keys, sizes and times:
// <Contents><Key/><LastModified/><Size/></Contents>..., <IsTruncated/>,
// <NextContinuationToken/>. A reader of exactly these elements, not of XML.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ketch::objstore {

struct listed_object {
    std::string key;
    uint64_t size = 0;
    std::chrono::system_clock::time_point last_modified;
};

struct object_page {
    std::vector<listed_object> objects;
    std::string next_continuation;  // "" on the last page
};

// nullopt when an element is malformed (a <Contents> without <Key>, a bad time).
std::optional<object_page> parse_list_objects(std::string_view xml);
// 2026-12-04T19:10:23.000Z (ISO 8601, UTC; fractional seconds ignored).
std::optional<std::chrono::system_clock::time_point> parse_iso8601(std::string_view s);

}  // namespace ketch::objstore
