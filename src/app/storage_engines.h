// The partition service's storage: the local log (single node), or in
// cluster mode the shared log (shared/shared_engine.h) with the internal
// __consumer_offsets mirror still local (groups are per broker so far).
#pragma once

#include <memory>

#include <boost/asio/thread_pool.hpp>

#include "app/options.h"
#include "broker/broker_context.h"
#include "log/log_manager.h"
#include "meta/topic_registry.h"
#include "partition/local_storage.h"
#include "partition/service.h"
#include "shared/janitor.h"
#include "shared/pg_offset_store.h"
#include "shared/shared_engine.h"
#include "shared/sweeper.h"
#include "txn/producer_ids.h"

namespace ketch::app {

struct storage_engines {
    std::unique_ptr<partition::local_engine> local;
    std::unique_ptr<shared::shared_engine> shared;  // cluster mode only
    // Cluster mode: the sweeper's and the janitor's PostgreSQL session (ketch-<node id>-jobs), outside the pool.
    std::unique_ptr<shared::job_session> jobs;
    std::unique_ptr<shared::orphan_sweeper> sweeper;  // cluster mode: deletes objects no commit recorded
    std::unique_ptr<shared::janitor> janitor;         // cluster mode: retention and garbage collection
    // Cluster mode: the threads Fetch's reads run on (broker_context::run_reads).
    std::unique_ptr<boost::asio::thread_pool> reads;

    partition::storage_engine& engine() { return shared ? static_cast<partition::storage_engine&>(*shared) : *local; }
    // Throws std::runtime_error when cluster mode's engines do not answer.
    // `pg`: cluster mode's pool (pg_pool_of), outliving the engines.
    static storage_engines open(const options& opt, cluster::pg_pool* pg, log::log_manager& logs,
                                meta::topic_registry& topics);
    // Cluster mode: the broker's PostgreSQL connections, at most
    // --cluster-pg-connections (cluster/pg_pool.h; application_name
    // ketch-<node id>-pool); null without --cluster. Connects to nothing yet.
    static std::unique_ptr<cluster::pg_pool> pg_pool_of(const options& opt);
    // Cluster mode: topics, dynamic broker configs and named config resources
    // in PostgreSQL instead of meta.db; null without --cluster.
    static std::unique_ptr<meta::store> topic_store(const options& opt, cluster::pg_pool* pg);

    // Fetch wake-ups (transaction markers; in cluster mode, commits), and in
    // cluster mode: topics reloaded when another broker changes them, producer
    // ids in blocks from PostgreSQL.
    void attach(log::log_manager& logs, meta::topic_registry& topics, partition::service& partitions,
                txn::producer_ids& producer_ids);
    // Cluster mode: Fetch's reads on `reads` (k_read_threads threads: reads
    // wait on PostgreSQL and the object store, not on the CPU). What waits for
    // a thread is one parked fetch each (its coroutine frame), so the queue is
    // bounded by the requests in flight, as on a single node.
    static constexpr int k_read_threads = 4;
    // The bound of the requests' read-through of the topics (broker/topic_read_through.h):
    // at most this many names read a second, a name at most once a second.
    static constexpr int k_topic_reads_per_second = 20;
    // Also: a transaction's end announced by its coordinator (any broker)
    // completes the offsets this broker's groups hold for it (on run_blocking);
    // and a request naming a topic not heard of reads the topics through
    // (broker_context::read_topics_through).
    void attach_reads(broker::broker_context& ctx, shared::pg_offset_store* offsets);
    // Waits for the reads in flight (after the listeners stopped).
    void stop_reads();
};

// Cluster mode: until destroyed, `fn` runs (on the commit listener's thread)
// at each NOTIFY ketch_commit `payload` and when the listener LISTENs again;
// and once at once, after it is registered (a change made before is not
// missed). Declare it after what fn uses. Nothing without --cluster.
class notice_follower {
public:
    notice_follower(storage_engines& storage, const char* payload, const std::function<void()>& fn)
        : storage_(storage), payload_(payload) {
        if (!storage_.shared) return;
        storage_.shared->set_on_notice(payload_, fn);
        fn();
    }
    ~notice_follower() {
        if (storage_.shared) storage_.shared->set_on_notice(payload_, nullptr);
    }
    notice_follower(const notice_follower&) = delete;
    notice_follower& operator=(const notice_follower&) = delete;

private:
    storage_engines& storage_;
    const char* payload_;
};

}  // namespace ketch::app
