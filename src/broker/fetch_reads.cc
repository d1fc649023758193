#include "broker/fetch_reads.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>

#include "broker/async.h"
#include "broker/handler.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using partition_data = fetch_response::partition_data;

struct read_totals {
    uint64_t bytes = 0;
    bool read_error = false;  // a partition that could be read failed (errorReadingData)
};

// The answer of a partition that is not read: its error, no records, an
// empty aborted list (FetchResponse.partitionResponse; recorded).
void answer_error(partition_data& out, error_code e) {
    out.error_code = code(e);
    out.records = records{};
}

void fill_records(request_context& ctx, partition_data& out, log::read_result& r) {
    records recs;
    bool zero_copy = ctx.conn.file_chunks_ok;
    for (auto& s : r.slices) zero_copy &= s.file->native_handle() >= 0;
    if (zero_copy) {
        for (auto& s : r.slices)
            recs.chunks.push_back({s.file->native_handle(), int64_t(s.position), s.length, s.file, s.file_end});
    } else {
        // Not a plain file (tests' in-memory fs) or a caller that needs the bytes: copy.
        auto copy = log::read_bytes(r);
        if (!copy.ok()) throw std::runtime_error("reading the log: " + copy.error().message);
        recs.data = shared_bytes(std::move(*copy));
    }
    out.records = std::move(recs);
}

// Reads one partition into `it.out` with at most `budget` bytes; the bytes read.
uint64_t read_one(request_context& ctx, fetch_item& it, uint64_t budget, bool first, read_totals& t,
                  bool read_committed) {
    auto& out = it.out;
    out = partition_data{};
    out.partition_index = it.key.partition;
    out.high_watermark = -1;
    out.last_stable_offset = -1;
    out.log_start_offset = -1;
    out.aborted_transactions.emplace();
    out.records = records{};
    auto part = open_partition(ctx, *it.topic, it.key.partition);
    if (!part.ok()) {
        answer_error(out, part.error());
        it.erroneous = it.topic->error != error_code::none || part.error() == error_code::unknown_topic_or_partition;
        t.read_error |= !it.erroneous;
        return 0;
    }
    if (auto e = partition::service::check_leader_epoch(it.params.current_leader_epoch); e != error_code::none) {
        answer_error(out, e);
        t.read_error = true;
        return 0;
    }
    uint64_t limit = std::min<uint64_t>(uint64_t(std::max(it.params.max_bytes, 0)), budget);
    log::read_options ro;
    ro.min_one_batch = first;
    ro.read_committed = read_committed;
    auto r = ctx.broker.partitions.read(*part, it.params.fetch_offset, limit, ro);
    // Past this point Kafka's answer comes from the log read: a
    // read_uncommitted partition carries a null aborted list, errors too.
    if (!read_committed) out.aborted_transactions.reset();
    if (!r.ok()) {
        out.error_code = code(r.error());
        t.read_error = true;
        return 0;
    }
    out.high_watermark = r->high_watermark;
    out.last_stable_offset = r->last_stable_offset;
    if (read_committed && r->aborted) {
        for (const auto& a : *r->aborted) out.aborted_transactions->push_back({a.producer_id, a.first_offset, {}});
    }
    out.log_start_offset = r->log_start_offset;
    fill_records(ctx, out, *r);
    return r->total_bytes;
}

// Reads every item, honouring max_bytes across the response (the first
// partition with data may exceed it, as Kafka's minOneMessage does).
read_totals read_all_items(request_context& ctx, std::vector<fetch_item>& items, const fetch_limits& lim) {
    read_totals t;
    uint64_t budget = uint64_t(std::max(lim.max_bytes, 0));
    for (auto& it : items) {
        uint64_t n = read_one(ctx, it, budget, t.bytes == 0, t, lim.read_committed);
        t.bytes += n;
        budget = budget > n ? budget - n : 0;
    }
    return t;
}

// read_all on broker_context::run_reads (cluster mode: the reads query
// PostgreSQL and GET objects, which must not hold up the reactor's other
// connections); the coroutine resumes on its reactor. An exception of the
// read is rethrown here, on the reactor.
awaitable<read_totals> read_all_elsewhere(request_context& ctx, std::vector<fetch_item>& items,
                                          const fetch_limits& lim) {
    struct outcome {
        read_totals t;
        std::exception_ptr failed;
    };
    auto o = co_await on_callback<outcome>([&ctx, &items, &lim](std::function<void(outcome)> done) {
        ctx.broker.run_reads([&ctx, &items, &lim, done = std::move(done)] {
            outcome r;
            try {
                r.t = read_all_items(ctx, items, lim);
            } catch (...) {
                r.failed = std::current_exception();
            }
            done(std::move(r));
        });
    });
    if (o.failed) std::rethrow_exception(o.failed);
    co_return o.t;
}

}  // namespace

awaitable<void> read_or_wait(request_context& ctx, std::vector<fetch_item>& items, const fetch_limits& lim) {
    auto& b = ctx.broker;
    const uint64_t min_bytes = uint64_t(std::max(lim.min_bytes, 1));
    const bool elsewhere = bool(b.run_reads);  // single node: one test, the reads stay here
    // if/else, not ?: — GCC 12 evaluates a co_await inside a conditional
    // expression whatever the condition.
    read_totals t;
    if (elsewhere)
        t = co_await read_all_elsewhere(ctx, items, lim);
    else
        t = read_all_items(ctx, items, lim);
    std::vector<partition::fetch_waiters::key> keys;
    for (auto& it : items)
        if (!it.erroneous) keys.emplace_back(it.topic->topic->t.name, it.key.partition);
    if (t.bytes >= min_bytes || lim.max_wait_ms <= 0 || t.read_error || keys.empty()) co_return;

    // Long poll: wait for an append to one of our partitions, or the deadline.
    auto ex = co_await boost::asio::this_coro::executor;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(lim.max_wait_ms);
    // Shared: a wake-up posted by an appender may run after this coroutine ends.
    auto timer = std::make_shared<boost::asio::steady_timer>(ex);
    // Set (on the reactor) by a wake-up: with the reads elsewhere, one may
    // come before the wait starts, when cancelling the timer does nothing.
    auto woken = elsewhere ? std::make_shared<bool>(false) : nullptr;
    while (t.bytes < min_bytes) {
        timer->expires_at(deadline);
        if (woken) *woken = false;
        auto w = b.partitions.waiters().park(keys, [timer, woken, ex] {
            boost::asio::post(ex, [timer, woken] {
                if (woken) *woken = true;
                timer->cancel();
            });
        });
        // Data may have arrived between the read and the park: look once more.
        if (elsewhere)
            t = co_await read_all_elsewhere(ctx, items, lim);
        else
            t = read_all_items(ctx, items, lim);
        if (t.bytes >= min_bytes || t.read_error) {
            b.partitions.waiters().unpark(w, keys);
            break;
        }
        boost::system::error_code ec = boost::asio::error::operation_aborted;
        if (!woken || !*woken) {
            handler_clock* clock = handler_clock::pause_current();  // waiting costs no request quota
            std::tie(ec) = co_await timer->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            handler_clock::resume(clock);
        }
        b.partitions.waiters().unpark(w, keys);
        if (elsewhere)
            t = co_await read_all_elsewhere(ctx, items, lim);
        else
            t = read_all_items(ctx, items, lim);
        if (!ec || t.read_error) break;  // deadline
    }
}

}  // namespace ketch::broker
