#include "app/share_service.h"

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "app/group_service.h"
#include "app/stores.h"
#include "broker/broker_context.h"
#include "broker/live_brokers.h"
#include "shared/pg_topic_store.h"

namespace ketch::app {

namespace {
// How often members' sessions and records' locks are checked: a lock is
// released at most this long after it runs out.
constexpr int64_t k_tick_ms = 100;
}  // namespace

share_service::share_service(const options& opt, stores& s, const meta::topic_registry& topics, group_service& groups,
                             broker::broker_context& ctx)
    : topics_(&topics) {
    auto list = [&topics] {
        std::vector<share::topic_info> out;
        for (auto& t : topics.list()) out.push_back({t.name, t.id, t.partition_count});
        return out;
    };
    auto* registry = groups.configs.get();
    auto configs = [registry](const std::string& group) { return registry->configs(group); };
    auto* clock = &groups.clock;
    meta::share_store* store = s.shares.get();
    if (!opt.cluster.empty()) {
        cluster_store = std::make_unique<shared::pg_share_store>(*s.cluster_pg);
        store = cluster_store.get();
    }
    coordinator =
        std::make_unique<share::coordinator>(opt.share, store, list, configs, [clock] { return clock->now_ms(); });
    if (auto e = coordinator->load()) throw std::runtime_error("share groups: " + *e);
    ctx.shares = coordinator.get();
    timer = std::make_unique<periodic>(groups.timers, k_tick_ms, [c = coordinator.get()] { c->tick(); });
}

share_leases_follower::share_leases_follower(std::unique_ptr<shared::shared_engine>& engine, share::coordinator& shares)
    : engine_(engine) {
    if (!engine_) return;
    engine_->set_on_notice(shared::k_share_leases_changed, [&shares] { shares.drop_moved(); });
}

share_leases_follower::~share_leases_follower() {
    if (!engine_) return;
    engine_->set_on_notice(shared::k_share_leases_changed, nullptr);
}

void share_service::follow(const cluster::membership* m, int32_t self, std::unique_ptr<shared::shared_engine>& engine) {
    if (!m || !cluster_store) return;
    leases_follower = std::make_unique<share_leases_follower>(engine, *coordinator);
    cluster_store->set_holder(self, m->incarnation());
    coordinator->set_leader_check([m, self, topics = topics_](const share::topic_partition& tp) {
        // Metadata's leader (03_metadata.cc): the same function, the same
        // brokers (every broker has every listener in a cluster).
        auto serving = m->serving();
        std::vector<broker::listed_broker> brokers;
        for (auto& b : *serving) brokers.push_back({b.node_id, {}, 0, {}});
        if (brokers.empty()) return true;
        auto t = topics->by_id(tp.topic_id);
        const int32_t partitions = t ? t->partition_count : tp.partition + 1;
        return broker::partition_leader(brokers, tp.topic_id.to_base64(), tp.partition, partitions) == self;
    });
}

}  // namespace ketch::app
