#include "share/share_group.h"

#include <algorithm>
#include <set>

namespace ketch::share {

std::vector<std::string> share_group::subscribed_topics() const {
    std::set<std::string> all;
    for (auto& [id, m] : members) all.insert(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
    return {all.begin(), all.end()};
}

std::map<std::string, assignment> assign(const share_group& g, const std::vector<assignable_topic>& topics) {
    std::map<std::string, assignment> out;
    for (auto& [id, m] : g.members) out[id];
    // Per topic: its subscribers (in member id order) and its partitions.
    for (auto& t : topics) {
        std::vector<std::string> subs;
        for (auto& [id, m] : g.members)
            if (std::binary_search(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end(), t.name))
                subs.push_back(id);
        if (subs.empty() || t.partitions.empty()) continue;
        // Each topic is dealt from the first subscriber in id order.
        size_t n = subs.size();
        size_t p = t.partitions.size();
        if (p >= n) {
            for (size_t i = 0; i < p; ++i) out[subs[i % n]][t.id].push_back(t.partitions[i]);
        } else {
            for (size_t i = 0; i < n; ++i) out[subs[i]][t.id].push_back(t.partitions[i % p]);
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
