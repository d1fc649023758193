#include "app/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ketch::app {

data_dir_lock::data_dir_lock(const std::filesystem::path& dir) {
    auto path = dir / ".lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        ::close(fd_);
        fd_ = -1;
        if (err == EWOULDBLOCK)
            throw std::runtime_error("Failed to acquire lock on file .lock in " + dir.string() +
                                     ". A ketch instance in another process is using this directory.");
        throw std::runtime_error("cannot lock " + path.string() + ": " + std::strerror(err));
    }
}

data_dir_lock::~data_dir_lock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace ketch::app
