#include "app/share_service.h"

#include <stdexcept>

#include "app/group_service.h"
#include "app/stores.h"

namespace ketch::app {

namespace {
// How often members' sessions and records' locks are checked: a lock is
// released at most this long after it runs out.
constexpr int64_t k_tick_ms = 100;
}  // namespace

share_service::share_service(const options& opt, stores& s, const meta::topic_registry& topics, group_service& groups) {
    share::settings st;
    st.record_lock_duration_ms = opt.group_share_record_lock_duration_ms;
    st.session_timeout_ms = opt.group_share_session_timeout_ms;
    st.heartbeat_interval_ms = opt.group_share_heartbeat_interval_ms;
    st.assignment_interval_ms = opt.group_share_assignment_interval_ms;
    auto list = [&topics] {
        std::vector<share::topic_info> out;
        for (auto& t : topics.list()) out.push_back({t.name, t.id, t.partition_count});
        return out;
    };
    auto* registry = groups.configs.get();
    auto configs = [registry](const std::string& group) { return registry->configs(group); };
    auto* clock = &groups.clock;
    coordinator =
        std::make_unique<share::coordinator>(st, s.shares.get(), list, configs, [clock] { return clock->now_ms(); });
    if (auto e = coordinator->load()) throw std::runtime_error("share groups: " + *e);
    timer = std::make_unique<periodic>(groups.timers, k_tick_ms, [c = coordinator.get()] { c->tick(); });
}

}  // namespace ketch::app
