#include "io/io_error.h"

#include <cerrno>
#include <system_error>

namespace ketch::io {

io_errc kind_from_errno(int err) {
    switch (err) {
        case ENOENT: return io_errc::not_found;
        case EEXIST: return io_errc::exists;
        case ENOSPC:
        case EDQUOT: return io_errc::no_space;
        case EACCES:
        case EPERM:
        case EROFS: return io_errc::permission;
        case EINVAL: return io_errc::invalid;
        case ENOTEMPTY: return io_errc::not_empty;
        case EMFILE:
        case ENFILE: return io_errc::too_many_files;
        default: return io_errc::io;
    }
}

io_error from_errno(int err, std::string what, std::string path) {
    return io_error{kind_from_errno(err), err, std::move(path), std::move(what)};
}

const char* to_string(io_errc k) {
    switch (k) {
        case io_errc::io: return "i/o error";
        case io_errc::not_found: return "not found";
        case io_errc::exists: return "already exists";
        case io_errc::no_space: return "no space left on device";
        case io_errc::permission: return "permission denied";
        case io_errc::invalid: return "invalid argument";
        case io_errc::not_empty: return "directory not empty";
        case io_errc::too_many_files: return "too many open files";
        case io_errc::end_of_file: return "unexpected end of file";
    }
    return "unknown";
}

std::string io_error::message() const {
    std::string m = what.empty() ? std::string("io") : what;
    if (!path.empty()) m += " " + path;
    m += ": ";
    m += sys_errno ? std::generic_category().message(sys_errno) : std::string(to_string(kind));
    return m;
}

}  // namespace ketch::io
