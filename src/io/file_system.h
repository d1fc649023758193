// io::file_system: the operating system as the log sees it (LevelDB's Env).
// Implementations: posix_file_system (real files), memory_file_system (tests,
// with crash simulation), and the decorators built on forwarding_file_system:
// fault_file_system (injects disk full, failed writes and failed fdatasync,
// and counts calls) and pooling_file_system (bounds the open files).
//
// Paths are plain strings joined with '/'. Every method is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "io/file.h"
#include "io/io_error.h"

namespace ketch::io {

enum class open_mode : uint8_t {
    read_only,   // must exist
    read_write,  // must exist
    create,      // read-write, created empty if missing
    create_new,  // read-write, fails with io_errc::exists if present
    truncate,    // read-write, created if missing, emptied if present
};

struct dir_entry {
    std::string name;  // no directory part
    bool is_dir = false;
};

class file_system {
public:
    virtual ~file_system() = default;

    // The handle may outlive a remove() of its path (POSIX semantics: the
    // data stays readable through the handle until the last one closes).
    virtual io_result<std::shared_ptr<file>> open(const std::string& path, open_mode mode) = 0;

    // Atomically replaces `to` (a file, or a directory when both are ones).
    virtual io_status rename(const std::string& from, const std::string& to) = 0;
    // Removes a file or an empty directory.
    virtual io_status remove(const std::string& path) = 0;
    // Entries of `dir` in no particular order, without "." and "..".
    virtual io_result<std::vector<dir_entry>> list_dir(const std::string& dir) = 0;
    // Creates `dir` and missing parents; succeeds if it exists already.
    virtual io_status mkdir(const std::string& dir) = 0;
    virtual io_result<uint64_t> file_size(const std::string& path) = 0;
    // Last modification time, milliseconds since the Unix epoch.
    virtual io_result<int64_t> modified_ms(const std::string& path) = 0;
    virtual io_result<bool> exists(const std::string& path) = 0;
    // Makes creations, renames and removals inside `dir` durable.
    virtual io_status sync_dir(const std::string& dir) = 0;
};

// "a/b" from "a" and "b" (no doubled '/').
std::string join_path(std::string_view dir, std::string_view name);
// The directory part of `path` ("." when there is none).
std::string parent_path(std::string_view path);

// Whole-file helpers built on the interface.
io_result<bytes> read_file(file_system& fs, const std::string& path);
// Writes `data` to `path` so that after a crash the file holds either the old
// or the new content: temporary file, fdatasync, rename, sync_dir.
io_status write_file_atomically(file_system& fs, const std::string& path, byte_view data);
// Removes `path` and everything below it; succeeds if it does not exist.
io_status remove_all(file_system& fs, const std::string& path);

}  // namespace ketch::io
