// io::file: one open file, addressed by absolute position (no cursor), so that
// one writer and many readers can share a handle without coordinating seeks.
//
// Thread-safety: every method may be called from any thread. Calls touching
// disjoint byte ranges may run concurrently; a reader must not read a range a
// writer is still writing (the log publishes an end position only after the
// write returned). size() reflects completed writes.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/bytes.h"
#include "io/io_error.h"

namespace ketch::io {

class file {
public:
    explicit file(std::string path) : path_(std::move(path)) {}
    virtual ~file() = default;
    file(const file&) = delete;
    file& operator=(const file&) = delete;

    // Reads up to out.size() bytes at `pos`; returns how many were read, which
    // is less than out.size() only at the end of the file.
    virtual io_result<size_t> pread(uint64_t pos, std::span<uint8_t> out) const = 0;

    // Writes the concatenation of `parts` at `pos`, all of it or an error. As
    // on a real disk, a failed write may have stored a prefix of the data.
    virtual io_status pwritev(uint64_t pos, std::span<const byte_view> parts) = 0;

    // Flushes this file's data (and the metadata needed to read it back,
    // e.g. its size) to stable storage. Not the directory entry: see
    // file_system::sync_dir.
    virtual io_status fdatasync() = 0;

    // Sets the size; bytes past `size` are gone, a larger size reads zeros.
    virtual io_status truncate(uint64_t size) = 0;

    virtual io_result<uint64_t> size() const = 0;

    // The OS file descriptor, for sendfile(2); -1 when the file does not live
    // in the OS (in-memory file system). Valid while this object lives.
    virtual int native_handle() const { return -1; }

    const std::string& path() const { return path_; }

    // Conveniences over the primitives above.
    io_status pwrite(uint64_t pos, byte_view data) { return pwritev(pos, std::span<const byte_view>(&data, 1)); }
    // Writes at the current end of the file.
    io_status append(byte_view data);
    // Reads exactly out.size() bytes or fails with io_errc::end_of_file.
    io_status read_exact(uint64_t pos, std::span<uint8_t> out) const;

private:
    std::string path_;
};

}  // namespace ketch::io
