#include "share/share_group.h"

#include <algorithm>
#include <set>

namespace ketch::share {

std::vector<std::string> share_group::subscribed_topics() const {
    std::set<std::string> all;
    for (auto& [id, m] : members) all.insert(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
    return {all.begin(), all.end()};
}

std::map<std::string, assignment> assign(const share_group& g, const std::vector<topic_info>& topics) {
    std::map<std::string, assignment> out;
    for (auto& [id, m] : g.members) out[id];
    // Per topic: its subscribers (in member id order) and its partitions.
    for (auto& t : topics) {
        std::vector<std::string> subs;
        for (auto& [id, m] : g.members)
            if (std::binary_search(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end(), t.name))
                subs.push_back(id);
        if (subs.empty() || t.partitions <= 0) continue;
        // Each topic is dealt from the first subscriber in id order.
        size_t n = subs.size();
        size_t p = size_t(t.partitions);
        if (p >= n) {
            for (size_t i = 0; i < p; ++i) out[subs[i % n]][t.id].push_back(int32_t(i));
        } else {
            for (size_t i = 0; i < n; ++i) out[subs[i]][t.id].push_back(int32_t(i % p));
        }
    }
    for (auto& [id, a] : out)
        for (auto& [tid, parts] : a) {
            std::sort(parts.begin(), parts.end());
            parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
        }
    return out;
}

}  // namespace ketch::share
