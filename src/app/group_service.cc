#include "app/group_service.h"

#include <stdexcept>

#include "app/stores.h"
#include "broker/resource_configs.h"

namespace ketch::app {

group_service::group_service(const options& opt, stores& s, meta::offset_store& offsets,
                             const meta::topic_registry& topics)
    : topic_view(topics) {
    auto cfg = opt.group;
    cfg.consumer_migration_policy = group::parse_migration_policy(opt.group_consumer_migration_policy);
    // Per-group config overrides (meta.db; PostgreSQL in cluster mode): the coordinator starts with them
    // (its restored members' session timers use them) and gets every change.
    auto overrides = meta::resource_config_registry::open(s.configs(), meta::config_resource::group);
    if (!overrides.ok()) throw std::runtime_error("group configs: " + overrides.error().message);
    configs = std::move(*overrides);
    for (const auto& [group, values] : configs->all())
        cfg.group_overrides_by_id[group] = broker::group_overrides_of(values);
    auto opened = group::group_coordinator::open(cfg, clock, timers, offsets);
    if (!opened.ok()) throw std::runtime_error("groups: " + opened.error().message);
    coordinator = std::move(*opened);
    coordinator->set_topic_view(&topic_view);
    configs->set_listener([c = coordinator.get()](const std::string& group, const meta::config_map& values) {
        c->set_group_overrides(group, broker::group_overrides_of(values));
    });
}

}  // namespace ketch::app
