#include "cluster/commit_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "cluster/pg.h"

namespace ketch::cluster {

commit_listener::commit_listener(std::string url, callback on_commit, std::chrono::milliseconds retry)
    : url_(std::move(url)), on_commit_(std::move(on_commit)), retry_(retry), stop_fd_(eventfd(0, EFD_CLOEXEC)) {
    thread_ = std::thread([this] { run(); });
}

commit_listener::~commit_listener() {
    uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof one) != sizeof one) spdlog::warn("commit listener: cannot signal stop");
    thread_.join();
    close(stop_fd_);
}

bool commit_listener::wait_listening(std::chrono::milliseconds timeout) {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, timeout, [this] { return listening_; });
}

void commit_listener::run() {
    while (listen_once()) {
        pollfd p{stop_fd_, POLLIN, 0};
        if (poll(&p, 1, int(retry_.count())) > 0) return;  // stopped while waiting to retry
    }
}

bool commit_listener::listen_once() {
    auto c = pg_connection::open(url_);
    if (!c.ok() || !(*c)->run("LISTEN ketch_commit").ok()) {
        spdlog::warn("commit listener: cannot LISTEN: {}", c.ok() ? "LISTEN failed" : c.error().message);
        return true;
    }
    bool again = false;
    {
        std::lock_guard g(mu_);
        again = listening_;
        listening_ = true;
    }
    cv_.notify_all();
    if (again) on_commit_(k_listening_again);
    std::vector<pg_connection::notification> got;
    for (;;) {
        if ((*c)->socket() < 0) return true;
        pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {(*c)->socket(), POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) continue;  // EINTR
        if (fds[0].revents) return false;
        got.clear();
        if (!(*c)->take_notifications(got)) {
            spdlog::warn("commit listener: connection lost; listening again");
            return true;
        }
        for (auto& n : got) on_commit_(n.payload);
    }
}

}  // namespace ketch::cluster
