// The group coordinator as the broker runs it: Kafka's group.* settings from
// the flags, per-group overrides from meta.db, committed offsets in
// offsets.db, timers on a thread of their own.
#pragma once

#include <memory>

#include "app/options.h"
#include "app/registry_topic_view.h"
#include "group/coordinator.h"
#include "group/thread_scheduler.h"
#include "meta/offset_store.h"
#include "meta/resource_config_registry.h"

namespace ketch::app {

struct stores;

struct group_service {
    // Throws std::runtime_error when a store cannot be read.
    // `offsets` is the store the coordinator writes through (offsets.db
    // itself, or broker::offsets_topic in front of it).
    group_service(const options& opt, stores& s, meta::offset_store& offsets, const meta::topic_registry& topics);

    group::system_clock clock;
    group::thread_scheduler timers;                           // also runs the broker's other periodic tasks
    std::unique_ptr<meta::resource_config_registry> configs;  // GROUP config resources
    registry_topic_view topic_view;
    std::shared_ptr<group::group_coordinator> coordinator;
};

}  // namespace ketch::app
