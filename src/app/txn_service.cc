#include "app/txn_service.h"

#include <memory>
#include <stdexcept>

#include <boost/asio/steady_timer.hpp>

#include "app/stores.h"

namespace ketch::app {

namespace {

// Runs `job` after `delay_ms` on `pool`: a retry waits on a timer, not on a pool thread.
txn::transaction_coordinator::delayed_executor delayed_on(boost::asio::thread_pool& pool) {
    return [&pool](int64_t delay_ms, std::function<void()> job) {
        auto t = std::make_shared<boost::asio::steady_timer>(pool, std::chrono::milliseconds(delay_ms));
        t->async_wait([t, job = std::move(job)](const boost::system::error_code&) { job(); });
    };
}

// Cluster mode's store; null without --cluster (the schema is migrated by then).
std::unique_ptr<shared::pg_txn_store> open_txn_store(const stores& s) {
    if (!s.cluster_pg) return nullptr;
    return std::make_unique<shared::pg_txn_store>(*s.cluster_pg);
}

}  // namespace

txn_service::txn_service(const options& opt, stores& s, broker::broker_context& ctx, group_service& groups,
                         txn::producer_ids& producer_ids, boost::asio::thread_pool& blocking)
    : shared_(open_txn_store(s)),
      markers_(ctx),
      coordinator_(
          opt.txn, [&clock = groups.clock] { return clock.now_ms(); }, [&producer_ids] { return producer_ids.next(); },
          shared_ ? *shared_ : static_cast<meta::txn_store&>(*s.txns), markers_, ctx.run_blocking,
          delayed_on(blocking)),
      abort_timed_out_(groups.timers, opt.txn.abort_timed_out_interval_ms,
                       [&ctx, this] { ctx.run_blocking([this] { coordinator_.abort_timed_out(); }); }),
      expire_ids_(groups.timers, opt.txn.remove_expired_interval_ms,
                  [&ctx, this] { ctx.run_blocking([this] { coordinator_.expire_transactional_ids(); }); }) {
    // Cluster mode: a transaction's end moves its offsets in PostgreSQL (any
    // broker may coordinate the group) before the local groups hear of it.
    if (auto* shared = shared_.get())
        markers_.set_shared_offsets(
            [shared](int64_t producer_id, bool commit) { return shared->complete_offsets(producer_id, commit).ok(); });
    if (auto st = groups.coordinator->attach_txn_store(shared_ ? *shared_ : static_cast<meta::txn_store&>(*s.txns));
        !st.ok())
        throw std::runtime_error("transactional offsets: " + st.error().message);
    if (auto st = coordinator_.load(); !st.ok()) throw std::runtime_error("transactions: " + st.error().message);
    ctx.txns = &coordinator_;
}

void txn_service::shutdown() {
    coordinator_.shutdown();
    abort_timed_out_.stop();
    expire_ids_.stop();
}

}  // namespace ketch::app
