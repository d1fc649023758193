// broker::handler_clock: the time a request spends in its handler, counted
// only while the handler runs (request_percentage, as Kafka's
// ClientRequestQuotaManager counts request-handler thread time). A handler
// coroutine that suspends (a flush wait in on_callback, a long-poll timer)
// stops its clock until it resumes, so waiting costs no quota.
//
// The running handler's clock is a thread-local: invoke() starts it, every
// suspension point in the broker (async.h on_callback, Fetch's long poll)
// pauses it before suspending and resumes it (making it current again) after,
// and invoke() stops it when the handler is done.
#pragma once

#include <chrono>
#include <cstdint>

namespace ketch::broker {

class handler_clock {
public:
    using clock = std::chrono::steady_clock;

    // Makes this clock the running one and counts from now.
    void start() {
        current_ = this;
        since_ = clock::now();
        running_ = true;
    }
    // Stops counting; the running clock is none.
    void stop() {
        if (running_) elapsed_ += clock::now() - since_;
        running_ = false;
        if (current_ == this) current_ = nullptr;
    }
    int64_t elapsed_ns() const { return std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed_).count(); }

    // The clock of the handler running on this thread, if any.
    static handler_clock* current() { return current_; }

    // Around a suspension point: `auto* c = handler_clock::pause_current();
    // co_await ...; handler_clock::resume(c);`
    static handler_clock* pause_current() {
        handler_clock* c = current_;
        if (c) c->stop();
        return c;
    }
    static void resume(handler_clock* c) {
        if (c) c->start();
    }

private:
    static thread_local handler_clock* current_;
    clock::duration elapsed_{};
    clock::time_point since_{};
    bool running_ = false;
};

}  // namespace ketch::broker
