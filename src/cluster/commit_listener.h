// Wake-ups for long polls from other brokers' commits (docs/design/cluster.md,
// the fetch path): a thread of its own LISTENs on ketch_commit with a
// connection of its own and calls `on_commit(payload)` for each NOTIFY that
// commit_flush sends. It waits on the socket (poll), not on a timer: no
// polling loop. A broken connection is reopened after `retry` (and
// on_commit(k_listening_again) called once it listens again).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ketch::cluster {

// The payload on_commit gets once a lost connection LISTENs again: the
// notifications sent meanwhile are lost, what they would have reloaded is
// reloaded.
inline constexpr const char* k_listening_again = "listening-again";

class commit_listener {
public:
    using callback = std::function<void(const std::string& payload)>;
    commit_listener(std::string url, callback on_commit,
                    std::chrono::milliseconds retry = std::chrono::milliseconds(1000));
    ~commit_listener();  // stops and joins the thread
    commit_listener(const commit_listener&) = delete;
    commit_listener& operator=(const commit_listener&) = delete;

    // True once the first LISTEN is in place (notifications from then on are seen).
    bool wait_listening(std::chrono::milliseconds timeout);

private:
    void run();
    bool listen_once();  // one connection's life; false when stopped

    const std::string url_;
    const callback on_commit_;
    const std::chrono::milliseconds retry_;
    int stop_fd_ = -1;  // an eventfd: written to stop the thread
    std::mutex mu_;
    std::condition_variable cv_;
    bool listening_ = false;
    std::thread thread_;
};

}  // namespace ketch::cluster
