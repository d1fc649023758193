// The data directory belongs to one ketch at a time: an exclusive flock on
// <data-dir>/.lock for the life of the process (the kernel drops it when the
// process ends, SIGKILL included). Kafka locks each log directory the same way.
#pragma once

#include <filesystem>

namespace ketch::app {

class data_dir_lock {
public:
    // Throws std::runtime_error when the directory is locked by another process.
    explicit data_dir_lock(const std::filesystem::path& dir);
    ~data_dir_lock();
    data_dir_lock(const data_dir_lock&) = delete;
    data_dir_lock& operator=(const data_dir_lock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace ketch::app
