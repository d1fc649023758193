#include "broker/produce_appends.h"

#include <atomic>
#include <exception>
#include <memory>

#include <spdlog/spdlog.h>

#include "broker/blocking.h"

namespace ketch::broker {

namespace {

void append(broker_context& b, append_job& j) {
    try {
        j.out = b.partitions.append(*j.topic, j.partition, j.records, j.allow_zstd);
    } catch (const std::exception& e) {
        spdlog::error("produce to {}-{}: {}", j.topic->t.name, j.partition, e.what());
        j.out = {};
        j.out.error = error_code::unknown_server_error;
    }
}

// Cluster mode: a partition's first open on this broker reads its offsets in
// PostgreSQL (a connection of the pool, waited for while the pool is out):
// the partitions of `jobs` not open yet are opened on the blocking pool. A
// job whose partition did not open is answered with the open's error (as
// partition::service::append answers it) and left out of `jobs`.
boost::asio::awaitable<void> open_off_reactor(broker_context& b, std::vector<append_job*>& jobs) {
    std::vector<append_job*> unopened;
    for (auto* j : jobs)
        if (!b.partitions.find(j->topic->t.name, j->partition)) unopened.push_back(j);
    if (unopened.empty()) co_return;
    co_await blocking_call<bool>(b, [&b, &unopened] {
        for (auto* j : unopened)
            if (auto p = b.partitions.open(*j->topic, j->partition); !p.ok()) j->out.error = p.error();
        return true;
    });
    std::erase_if(jobs, [](const append_job* j) { return j->out.error != error_code::none; });
}

}  // namespace

boost::asio::awaitable<void> run_appends(broker_context& b, std::vector<append_job>& all, bool may_pool) {
    std::vector<append_job*> jobs;
    for (auto& j : all) jobs.push_back(&j);
    if (b.cluster) co_await open_off_reactor(b, jobs);
    size_t bytes = 0;
    for (auto* j : jobs) bytes += j->records.size();
    if (!may_pool || !b.run_appends || bytes < k_pooled_append_bytes) {
        for (auto* j : jobs) append(b, *j);
        co_return;
    }
    if (jobs.empty()) co_return;
    // One pool job per partition; the last to finish resumes the handler.
    // `all` lives in the handler's frame, which waits for all of them.
    co_await on_callback<bool>([&b, &jobs](std::function<void(bool)> done) {
        auto left = std::make_shared<std::atomic<size_t>>(jobs.size());
        auto finish = std::make_shared<std::function<void(bool)>>(std::move(done));
        for (auto* jp : jobs)
            b.run_appends([&b, &j = *jp, left, finish] {
                append(b, j);
                if (left->fetch_sub(1, std::memory_order_acq_rel) == 1) (*finish)(true);
            });
    });
}

}  // namespace ketch::broker
