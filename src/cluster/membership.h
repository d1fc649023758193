// Cluster membership in PostgreSQL (docs/design/cluster.md): a broker
// registers its node id, rack and listeners (ketch_brokers,
// ketch_broker_endpoints), then heartbeats; a broker whose last heartbeat is
// older than the session timeout (by PostgreSQL's clock, so brokers' clocks
// need not agree) is not live. Metadata and DescribeCluster read live(), a
// snapshot refreshed after every heartbeat: no request waits on PostgreSQL.
// The heartbeat connection's application_name names the broker's
// incarnation, so a broker whose session ended (killed) is seen at once.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "cluster/broker_info.h"

namespace ketch::cluster {

class pg_connection;

struct membership_config {
    std::string url;  // postgres://USER@HOST:PORT/DB
    broker_info self;
    std::chrono::milliseconds heartbeat_interval{2000};  // broker.heartbeat.interval.ms
    std::chrono::milliseconds session_timeout{9000};     // broker.session.timeout.ms
    // Proposed as the cluster's id by the broker that creates the cluster;
    // every other broker adopts the stored one.
    std::string cluster_id;
};

using broker_list = std::vector<broker_info>;

class membership {
public:
    // Connects, migrates the schema, agrees on the cluster id, registers this
    // broker and starts heartbeating (a thread of its own). Why not, as text.
    static result<std::unique_ptr<membership>, std::string> join(membership_config cfg);
    // Stops heartbeating and removes this broker's registration (it drops
    // out at once instead of after the session timeout).
    ~membership();

    const std::string& cluster_id() const { return cluster_id_; }
    // This process's registration (random per start).
    const std::string& incarnation() const { return incarnation_; }
    // The live brokers by node id, this one always among them.
    std::shared_ptr<const broker_list> live() const;
    // The live brokers whose heartbeat connection to PostgreSQL is open
    // (a subset of live(), this one always among them): a killed broker's
    // session ends at once, so it leaves this list at the next refresh
    // instead of after the session timeout. For hints only (Metadata's
    // partition leaders: any broker serves any partition); ownership
    // (groups, transactional ids) follows live().
    std::shared_ptr<const broker_list> serving() const;

    // Called on the heartbeat thread when the set of live node ids changes,
    // before live() answers the new set (so what depends on ownership, e.g.
    // groups moving here, is ready before this broker names itself their
    // owner). false: not ready; live() keeps the old set and the change is
    // offered again after the next heartbeat.
    using change_listener = std::function<bool(const broker_list& before, const broker_list& after)>;
    // Listeners are called in the order added; the change is adopted when all answer true.
    void add_change_listener(change_listener l);

    // While no other broker can have found this one out of the live set, by
    // this process's steady clock (docs/design/cluster.md "consumer groups",
    // "Answering from memory"): from `since`, the first heartbeat of the
    // current unbroken run of heartbeats, to `until`, the last heartbeat's
    // sending plus the session timeout less a margin (liveness_margin). Another
    // broker finds this one gone when PostgreSQL's clock is past its last
    // heartbeat (stamped by PostgreSQL after it was sent) by the session
    // timeout: not before `until`. A heartbeat sent after `until` starts a new
    // run (`since` moves): meanwhile another broker may have taken over what
    // this one owned.
    struct live_window {
        using time_point = std::chrono::steady_clock::time_point;
        time_point since, until;
        // After a heartbeat sent at `sent` was written: `until` moves to
        // `sent` + the session timeout less liveness_margin; a heartbeat sent
        // at or after the old `until` (or the first) starts a new run.
        live_window renewed(time_point sent, std::chrono::milliseconds session_timeout) const;
        // Whether something found this broker's at `confirmed` (a group's
        // lease) is still vouched for at `now`: found during the current run,
        // whose window is open.
        bool vouches(time_point confirmed, time_point now) const { return confirmed >= since && now < until; }
    };
    live_window window() const;
    // What `until` keeps back of the session timeout: a third of it (3 s of
    // the default 9 s), for PostgreSQL's clock stepping forward and the time
    // an answer takes after its check; a healthy broker heartbeats well inside.
    static std::chrono::milliseconds liveness_margin(std::chrono::milliseconds session_timeout) {
        return session_timeout / 3;
    }

private:
    // A heartbeat sent at `sent` was stamped (live_window).
    void heard(std::chrono::steady_clock::time_point sent);
    membership(membership_config cfg, std::unique_ptr<pg_connection> c, std::string cluster_id,
               std::string incarnation);
    void run();
    bool heartbeat();
    bool refresh();
    bool reconnect();

    const membership_config cfg_;
    std::unique_ptr<pg_connection> conn_;  // the heartbeat thread's (and join's, before it starts)
    const std::string cluster_id_;
    const std::string incarnation_;
    mutable std::mutex mu_;
    std::shared_ptr<const broker_list> live_;
    std::shared_ptr<const broker_list> serving_;
    live_window window_;                      // guarded by mu_
    std::vector<change_listener> listeners_;  // guarded by mu_; called without it
    std::mutex stop_mu_;
    std::condition_variable stop_cv_;
    bool stop_ = false;
    bool replaced_ = false;  // another process registered this node id
    std::thread thread_;
};

}  // namespace ketch::cluster
