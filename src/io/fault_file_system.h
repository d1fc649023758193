// fault_file_system: wraps another file system and injects the failures a
// disk produces, for tests (LevelDB's fault_injection_test idea):
//
//   * disk full after N more bytes: a write that does not fit stores the part
//     that fits (like a real short write) and fails with io_errc::no_space;
//   * the next K writes / fdatasyncs fail with a chosen kind;
//   * a rule asked before every write and fdatasync of a file (the broker's
//     --faults: per-partition disk-full and fsync failures, src/fault);
//   * a hook that runs before every file fdatasync (tests use it to hold the
//     flusher while they queue work, without sleeping);
//   * counters of writes, bytes written and fdatasync calls.
//
// Faults apply to files whose path contains `set_path_filter` (all files by
// default). Counters count every file. All methods are thread-safe. The
// fault_file_system must outlive the files it opened.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>

#include "io/forwarding_file_system.h"

namespace ketch::io {

class fault_file_system final : public forwarding_file_system {
public:
    explicit fault_file_system(std::shared_ptr<file_system> base);
    ~fault_file_system() override;

    // --- fault controls ---
    // After `bytes` more bytes are written, writes fail with no_space.
    void set_space_left(uint64_t bytes);
    // Unlimited space again ("space returns").
    void clear_space_limit();
    void fail_next_writes(int count, io_errc kind = io_errc::io);
    void fail_next_syncs(int count, io_errc kind = io_errc::io);
    // Runs (outside any lock) before each file fdatasync, with the file path.
    void set_before_sync(std::function<void(const std::string&)> hook);
    void set_path_filter(std::string substring);
    // Asked (outside any lock) before each write (sync false) and fdatasync
    // (sync true) of a file: an error kind fails the operation (a write
    // stores nothing). Applies whatever the path filter.
    using fault_rule = std::function<std::optional<io_errc>(const std::string& path, bool sync)>;
    void set_fault_rule(fault_rule rule);

    // --- counters ---
    uint64_t sync_count() const { return syncs_.load(); }
    uint64_t dir_sync_count() const { return dir_syncs_.load(); }
    uint64_t write_count() const { return writes_.load(); }
    uint64_t bytes_written() const { return bytes_.load(); }

    // --- file_system: files opened are wrapped; directory syncs are counted ---
    io_result<std::shared_ptr<file>> open(const std::string& path, open_mode mode) override;
    io_status sync_dir(const std::string& dir) override;

    // Called by the wrapped files. A write of `n` bytes to `path` may store
    // `allowed` bytes then fail with the returned error.
    struct write_verdict {
        size_t allowed;
        std::optional<io_error> error;
    };
    write_verdict before_write(const std::string& path, size_t n);
    std::optional<io_error> before_sync(const std::string& path);

private:
    bool matches_locked(const std::string& path) const;
    std::optional<io_errc> ask_rule(const std::string& path, bool sync);

    std::mutex mu_;  // guards the fault settings below
    std::optional<uint64_t> space_left_;
    int fail_writes_ = 0;
    io_errc fail_writes_kind_ = io_errc::io;
    int fail_syncs_ = 0;
    io_errc fail_syncs_kind_ = io_errc::io;
    std::string filter_;
    std::shared_ptr<std::function<void(const std::string&)>> before_sync_hook_;
    std::shared_ptr<fault_rule> rule_;
    std::atomic<uint64_t> syncs_{0}, dir_syncs_{0}, writes_{0}, bytes_{0};
};

}  // namespace ketch::io
