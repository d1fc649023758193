#include "protocol/message_base.h"

namespace ketch::kafka {

void write_tagged_fields(writer& w, std::vector<std::pair<uint32_t, bytes>>& known, const tagged_fields& unknown) {
    if (known.empty() && unknown.empty()) {
        w.uvarint(0);
        return;
    }
    for (auto& u : unknown) known.emplace_back(u.tag, u.data);
    std::stable_sort(known.begin(), known.end(), [](auto& a, auto& b) { return a.first < b.first; });
    w.uvarint(uint32_t(known.size()));
    for (auto& [tag, data] : known) {
        w.uvarint(tag);
        w.uvarint(uint32_t(data.size()));
        w.raw(data.data(), data.size());
    }
}

}  // namespace ketch::kafka
