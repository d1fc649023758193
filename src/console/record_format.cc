#include "console/record_format.h"

#include "base/utf8.h"

namespace ketch::console {

std::string to_hex(byte_view b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    s.reserve(b.size() * 2);
    for (auto x : b) {
        s.push_back(d[x >> 4]);
        s.push_back(d[x & 15]);
    }
    return s;
}

bool valid_utf8(byte_view b) {
    std::string_view s(reinterpret_cast<const char*>(b.data()), b.size());
    for (size_t i = 0; i < s.size();) {
        size_t at = i;
        uint32_t cp = next_code_point(s, i);
        if (cp == k_replacement_character && !(i - at == 3 && s.substr(at, 3) == "\xef\xbf\xbd")) return false;
    }
    return true;
}

nlohmann::json format_bytes(const std::optional<byte_view>& b) {
    if (!b) return nullptr;
    nlohmann::json j = {{"size", b->size()}};
    const bool cut = b->size() > k_shown_bytes;
    byte_view shown = cut ? b->first(k_shown_bytes) : *b;
    j["truncated"] = cut;
    j["hex"] = to_hex(shown.first(std::min<size_t>(shown.size(), 4096)));
    std::string_view text(reinterpret_cast<const char*>(shown.data()), shown.size());
    if (cut) text = utf8_prefix(text, k_shown_bytes);
    if (valid_utf8(as_bytes(text))) {
        j["text"] = std::string(text);
        if (!cut) {
            auto parsed = nlohmann::json::parse(text, nullptr, false);
            if (!parsed.is_discarded() && (parsed.is_object() || parsed.is_array())) j["json"] = parsed;
        }
    }
    return j;
}

}  // namespace ketch::console
