// Cluster mode's part of deleting a tenant (docs/cluster.md "Tenants";
// console/tenant_purge.cc): the broker asked to delete tenant T sends NOTIFY
// ketch_commit 'tenant-purge:<its node id>:T'; every other broker then closes
// T's connections to it (at their next request, as the deleting broker does)
// and removes the transactional ids and groups of T that it coordinates,
// through its own Kafka APIs in-process, as a User: of --super-users (on a
// thread of its own: an abort may wait for its markers). The deleting broker
// waits until PostgreSQL holds none of T's groups and transactional ids (at
// most 40 s) before it deletes T's topics. Nothing on a single node or
// without --tenancy.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>

#include "app/options.h"
#include "app/security_services.h"
#include "app/storage_engines.h"
#include "console/context.h"
#include "console/kafka_client.h"
#include "net/request_handler.h"
#include "shared/pg_session.h"

namespace ketch::app {

class cluster_tenants {
public:
    cluster_tenants(const options& opt, storage_engines& storage, security_services& security,
                    net::request_handler& dispatcher, boost::asio::io_context& reactor,
                    decltype(console::context::purge_transactions) purge_transactions);
    ~cluster_tenants();
    cluster_tenants(const cluster_tenants&) = delete;
    cluster_tenants& operator=(const cluster_tenants&) = delete;

    // The console's hooks (unset when off).
    console::cluster_purge_hooks hooks();

private:
    console::tenant_leftovers leftovers(const std::string& tenant);
    void heard(const std::string& rest);
    void run();

    storage_engines& storage_;
    const std::string node_;
    std::string who_;  // the principal the purge acts as
    std::unique_ptr<shared::pg_session> session_;
    std::unique_ptr<console::kafka_client> kafka_;
    console::context ctx_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::string> queue_;  // tenants to purge here
    bool stop_ = false;
    std::thread worker_;
};

}  // namespace ketch::app
