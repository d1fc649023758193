// posix_file_system: real files through open/pread/pwritev/fdatasync.
// Descriptors are opened O_CLOEXEC; system calls are retried on EINTR and on
// short transfers. native_handle() exposes the descriptor for sendfile(2).
#pragma once

#include "io/file_system.h"

namespace ketch::io {

class posix_file_system final : public file_system {
public:
    io_result<std::shared_ptr<file>> open(const std::string& path, open_mode mode) override;
    io_status rename(const std::string& from, const std::string& to) override;
    io_status remove(const std::string& path) override;
    io_result<std::vector<dir_entry>> list_dir(const std::string& dir) override;
    io_status mkdir(const std::string& dir) override;
    io_result<uint64_t> file_size(const std::string& path) override;
    io_result<int64_t> modified_ms(const std::string& path) override;
    io_result<bool> exists(const std::string& path) override;
    io_status sync_dir(const std::string& dir) override;
};

}  // namespace ketch::io
