// The group coordinator's view of the topics (group::topic_view) over the
// topic registry: what KIP-848 consumer groups subscribe to and get assigned.
#pragma once

#include "group/consumer_api.h"
#include "meta/topic_registry.h"

namespace ketch::app {

class registry_topic_view final : public group::topic_view {
public:
    explicit registry_topic_view(const meta::topic_registry& topics) : topics_(topics) {}

    std::vector<group::topic_meta> topics() const override {
        std::vector<group::topic_meta> out;
        for (auto& t : topics_.list()) out.push_back({std::move(t.name), t.id, t.partition_count});
        return out;
    }

private:
    const meta::topic_registry& topics_;
};

}  // namespace ketch::app
