// A mutex whose lock rules the compiler checks: `ketch::mutex` and
// `ketch::lock_guard` / `ketch::unique_lock` carry Clang's thread-safety
// annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html), so a
// field marked GUARDED_BY(mu_) read without mu_ held, or a function marked
// REQUIRES(mu_) called without it, is a compile error under
// `clang++ -Wthread-safety` (scripts/check-thread-safety.sh, ctest
// `group_thread_safety`). Under GCC, which has no such analysis, the macros
// are empty and the types are std::mutex and its guards.
#pragma once

#include <mutex>

#if defined(__clang__)
#define KETCH_TSA(x) __attribute__((x))
#else
#define KETCH_TSA(x)
#endif

#define CAPABILITY(x) KETCH_TSA(capability(x))
#define SCOPED_CAPABILITY KETCH_TSA(scoped_lockable)
#define GUARDED_BY(x) KETCH_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) KETCH_TSA(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) KETCH_TSA(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) KETCH_TSA(acquired_after(__VA_ARGS__))
#define REQUIRES(...) KETCH_TSA(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) KETCH_TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...) KETCH_TSA(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) KETCH_TSA(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) KETCH_TSA(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) KETCH_TSA(assert_capability(x))
#define RETURN_CAPABILITY(x) KETCH_TSA(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS KETCH_TSA(no_thread_safety_analysis)

namespace ketch {

class CAPABILITY("mutex") mutex {
public:
    mutex() = default;
    mutex(const mutex&) = delete;
    mutex& operator=(const mutex&) = delete;

    void lock() ACQUIRE() { m_.lock(); }
    void unlock() RELEASE() { m_.unlock(); }
    bool try_lock() TRY_ACQUIRE(true) { return m_.try_lock(); }
    // Tells the analysis that the caller holds the lock where it cannot see
    // it (a callback run under the lock by code it does not analyse).
    void assert_held() const ASSERT_CAPABILITY(this) {}

private:
    std::mutex m_;
};

// std::lock_guard for ketch::mutex.
class SCOPED_CAPABILITY lock_guard {
public:
    explicit lock_guard(mutex& m) ACQUIRE(m) : m_(m) { m_.lock(); }
    ~lock_guard() RELEASE() { m_.unlock(); }
    lock_guard(const lock_guard&) = delete;
    lock_guard& operator=(const lock_guard&) = delete;

private:
    mutex& m_;
};

// std::unique_lock for ketch::mutex: locked at construction, may be
// unlocked early (and relocked); unlocks at destruction if held.
class SCOPED_CAPABILITY unique_lock {
public:
    explicit unique_lock(mutex& m) ACQUIRE(m) : m_(m) { m_.lock(); }
    ~unique_lock() RELEASE() {
        if (held_) m_.unlock();
    }
    void lock() ACQUIRE() {
        m_.lock();
        held_ = true;
    }
    void unlock() RELEASE() {
        m_.unlock();
        held_ = false;
    }
    unique_lock(const unique_lock&) = delete;
    unique_lock& operator=(const unique_lock&) = delete;

private:
    mutex& m_;
    bool held_ = true;
};

}  // namespace ketch
