// memory_file_system: an in-process file system for fast unit tests.
//
// Files keep two contents: what was written, and what was durable at the last
// successful fdatasync. simulate_crash() drops every file back to its durable
// content (a file never synced becomes empty), which is what a power loss can
// do to a real disk. Namespace operations (create, rename, remove, mkdir) are
// durable at once; sync_dir is a no-op. Removed files stay readable through
// open handles, as on POSIX.
#pragma once

#include <functional>
#include <map>
#include <mutex>

#include "io/file_system.h"

namespace ketch::io {

class memory_file_system final : public file_system {
public:
    // `clock_ms` stamps modification times (default: the system clock).
    explicit memory_file_system(std::function<int64_t()> clock_ms = {});
    ~memory_file_system() override;

    io_result<std::shared_ptr<file>> open(const std::string& path, open_mode mode) override;
    io_status rename(const std::string& from, const std::string& to) override;
    io_status remove(const std::string& path) override;
    io_result<std::vector<dir_entry>> list_dir(const std::string& dir) override;
    io_status mkdir(const std::string& dir) override;
    io_result<uint64_t> file_size(const std::string& path) override;
    io_result<int64_t> modified_ms(const std::string& path) override;
    io_result<bool> exists(const std::string& path) override;
    io_status sync_dir(const std::string& dir) override;

    // Power loss: every file reverts to its content at its last fdatasync.
    void simulate_crash();
    // Sets a file's modification time (retention tests).
    io_status set_modified_ms(const std::string& path, int64_t ms);

    struct file_data;  // shared by the name table and open handles

private:
    struct entry {
        bool is_dir = false;
        std::shared_ptr<file_data> data;  // files only
    };
    bool parent_exists_locked(const std::string& path) const;
    struct file_stat {
        uint64_t size = 0;
        int64_t mtime_ms = 0;
    };
    // file_size and modified_ms: a file's, {0, 0} for a directory.
    io_result<file_stat> stat(const std::string& path) const;

    std::function<int64_t()> clock_ms_;
    mutable std::mutex mu_;                 // guards entries_ (not file contents)
    std::map<std::string, entry> entries_;  // key: normalised path
};

}  // namespace ketch::io
