#include "broker/produce_appends.h"

#include <atomic>
#include <exception>
#include <memory>

#include <spdlog/spdlog.h>

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

}  // namespace

boost::asio::awaitable<void> run_appends(broker_context& b, std::vector<append_job>& jobs, bool may_pool) {
    size_t bytes = 0;
    for (auto& j : jobs) bytes += j.records.size();
    if (!may_pool || !b.run_appends || bytes < k_pooled_append_bytes) {
        for (auto& j : jobs) append(b, j);
        co_return;
    }
    // One pool job per partition; the last to finish resumes the handler.
    // `jobs` lives in the handler's frame, which waits for all of them.
    co_await on_callback<bool>([&b, &jobs](std::function<void(bool)> done) {
        auto left = std::make_shared<std::atomic<size_t>>(jobs.size());
        auto finish = std::make_shared<std::function<void(bool)>>(std::move(done));
        for (auto& j : jobs)
            b.run_appends([&b, &j, left, finish] {
                append(b, j);
                if (left->fetch_sub(1, std::memory_order_acq_rel) == 1) (*finish)(true);
            });
    });
}

}  // namespace ketch::broker
