// io::pooling_file_system: a file_system decorator that bounds how many OS
// files stay open. Files whose path the `pooled` predicate accepts (the log
// pools its segment files) are opened at open() and then closed when idle:
// at most `max_open` of them are held open, the least recently used one is
// closed when another must open, and each reopens by its path on its next
// use. Other files pass straight through.
//
// Renames and removals go through this decorator, so it keeps each pooled
// file's path current: rename(from, to) moves the handles of `from` (or of the
// files below a directory `from`) to the new path, and a file about to be
// removed, or replaced by a rename onto it, is opened and pinned first (never
// closed while its handle lives), so a reader holding it still reads the same
// bytes, as POSIX promises for an open file.
//
// native_handle() of a pooled file is -1 (its descriptor may close at any
// moment): a caller that needs a descriptor that stays valid, as sendfile
// does, takes io::held(file) — the OS file itself, open for as long as that
// shared_ptr lives. So the files open at a time are at most max_open plus
// those held (e.g. by fetch answers being sent) plus the pinned ones.
//
// An fdatasync through a reopened handle syncs the file (Linux syncs the
// inode, whichever descriptor asks), and a write-back error nobody has seen
// yet is reported to a descriptor opened after it (Linux >= 4.16, errseq).
//
// Thread-safe. One mutex guards the pool (the map of paths, the LRU list); a
// reopen runs under it, as does the rename or removal of a pooled path.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "io/forwarding_file_system.h"

namespace ketch::io {

struct file_pool;

class pooling_file_system final : public forwarding_file_system {
public:
    pooling_file_system(std::shared_ptr<file_system> base, size_t max_open,
                        std::function<bool(std::string_view path)> pooled);
    ~pooling_file_system() override;

    // --- file_system: pooled opens; renames and removals keep the pool's paths ---
    io_result<std::shared_ptr<file>> open(const std::string& path, open_mode mode) override;
    io_status rename(const std::string& from, const std::string& to) override;
    io_status remove(const std::string& path) override;

    // Pooled files open now (not counting pinned ones), at most max_open.
    size_t open_count() const;
    size_t max_open() const;

private:
    std::function<bool(std::string_view)> pooled_;
    std::shared_ptr<file_pool> pool_;
};

// The OS file behind `f` while the result lives: for a pooled file, its
// handle opened now if it was closed (nullptr if that fails); otherwise `f`.
std::shared_ptr<file> held(const std::shared_ptr<file>& f);

}  // namespace ketch::io
