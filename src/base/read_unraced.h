// A cache's read of its store that no local change raced (cluster mode: a
// reload after a NOTIFY, a read-through of a name another broker wrote).
//
// The caches that use it (meta::topic_registry, security::delegation_tokens)
// keep two locks: a change lock that serialises their changes and is held
// across each change's store write, and the lookups' lock (shared_mutex),
// taken unique only to swap memory once the write committed, so a lookup on
// a reactor never waits for the store. A read of the store made without the
// change lock may hold the state from before a local write that committed
// meanwhile, and applying it would undo that write; `stamp` counts what such
// a read must not miss (the local writes, the reloads applied), changed only
// under both locks.
#pragma once

#include <cstdint>
#include <mutex>
#include <shared_mutex>

namespace ketch {

// What a read holds while it applies what it read (released in reverse order).
struct change_locks {
    std::unique_lock<std::mutex> change;
    std::unique_lock<std::shared_mutex> data;
};

// read(), then `locks` held (the change lock, and the lookups' lock unique),
// with no change `stamp` counts in between: a read that a change followed is
// made again, and after three such reads once more under the change lock
// (lookups go on meanwhile).
template <class Stamp, class Read>
auto read_unraced(std::mutex& change_mu, std::shared_mutex& mu, change_locks& locks, Stamp stamp, Read read) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        uint64_t seen = 0;
        {
            std::shared_lock before(mu);
            seen = stamp();
        }
        auto got = read();
        locks.change = std::unique_lock(change_mu);
        if (stamp() == seen) {
            locks.data = std::unique_lock(mu);
            return got;
        }
        locks.change.unlock();
    }
    locks.change = std::unique_lock(change_mu);
    auto got = read();
    locks.data = std::unique_lock(mu);
    return got;
}

}  // namespace ketch
