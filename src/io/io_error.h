// io_error: what went wrong with a file-system call, reduced to the few kinds
// callers act on (disk full, not found, ...), plus the errno and path for logs.
#pragma once

#include <string>

#include "base/result.h"

namespace ketch::io {

enum class io_errc : uint8_t {
    io,              // EIO and anything not listed below
    not_found,       // ENOENT
    exists,          // EEXIST
    no_space,        // ENOSPC, EDQUOT
    permission,      // EACCES, EPERM, EROFS
    invalid,         // EINVAL, a bad argument (negative size, ...)
    not_empty,       // ENOTEMPTY
    too_many_files,  // EMFILE, ENFILE
    end_of_file,     // a read needed more bytes than the file holds
};

struct io_error {
    io_errc kind = io_errc::io;
    int sys_errno = 0;  // 0 when the error did not come from the OS
    std::string path;   // the file the call was about, when known
    std::string what;   // the call that failed ("pwrite", "open", ...)

    // "pwrite /data/t-0/00000000000000000000.log: no space left on device"
    std::string message() const;
};

// Maps errno to a kind.
io_errc kind_from_errno(int err);
// io_error from errno for a call about `path`.
io_error from_errno(int err, std::string what, std::string path);
const char* to_string(io_errc k);

template <class T>
using io_result = result<T, io_error>;
using io_status = status<io_error>;

}  // namespace ketch::io
