// The share coordinator (KIP-932) as the broker runs it: group.share.*
// settings from the flags, per-group share.* overrides from the GROUP config
// registry, delivery state in shares.db, and a timer (on the group
// service's thread) that expires members and acquisition locks.
#pragma once

#include <memory>

#include "app/options.h"
#include "app/periodic.h"
#include "meta/resource_config_registry.h"
#include "meta/topic_registry.h"
#include "share/coordinator.h"

namespace ketch::app {

struct stores;
struct group_service;

struct share_service {
    // Throws std::runtime_error when shares.db cannot be read.
    share_service(const options& opt, stores& s, const meta::topic_registry& topics, group_service& groups);

    std::unique_ptr<share::coordinator> coordinator;
    std::unique_ptr<periodic> timer;
};

}  // namespace ketch::app
