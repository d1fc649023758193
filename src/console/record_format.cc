#include "console/record_format.h"

#include "base/hex.h"
#include "base/utf8.h"

namespace ketch::console {

nlohmann::json format_bytes(const std::optional<byte_view>& b) {
    if (!b) return nullptr;
    nlohmann::json j = {{"size", b->size()}};
    const bool cut = b->size() > k_shown_bytes;
    byte_view shown = cut ? b->first(k_shown_bytes) : *b;
    j["truncated"] = cut;
    j["hex"] = to_hex(shown.first(std::min<size_t>(shown.size(), 4096)));
    std::string_view text(reinterpret_cast<const char*>(shown.data()), shown.size());
    if (cut) text = utf8_prefix(text, k_shown_bytes);
    if (is_valid_utf8(text)) {
        j["text"] = std::string(text);
        if (!cut) {
            auto parsed = nlohmann::json::parse(text, nullptr, false);
            if (!parsed.is_discarded() && (parsed.is_object() || parsed.is_array())) j["json"] = parsed;
        }
    }
    return j;
}

}  // namespace ketch::console
