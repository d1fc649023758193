// io::forwarding_file_system: a file_system that passes every call to the one
// it wraps. The decorators (fault_file_system, pooling_file_system) derive
// from it and override only the calls they change.
#pragma once

#include <memory>
#include <utility>

#include "io/file_system.h"

namespace ketch::io {

class forwarding_file_system : public file_system {
public:
    explicit forwarding_file_system(std::shared_ptr<file_system> base) : base_(std::move(base)) {}

    io_result<std::shared_ptr<file>> open(const std::string& path, open_mode mode) override {
        return base_->open(path, mode);
    }
    io_status rename(const std::string& from, const std::string& to) override { return base_->rename(from, to); }
    io_status remove(const std::string& path) override { return base_->remove(path); }
    io_result<std::vector<dir_entry>> list_dir(const std::string& dir) override { return base_->list_dir(dir); }
    io_status mkdir(const std::string& dir) override { return base_->mkdir(dir); }
    io_result<uint64_t> file_size(const std::string& path) override { return base_->file_size(path); }
    io_result<int64_t> modified_ms(const std::string& path) override { return base_->modified_ms(path); }
    io_result<bool> exists(const std::string& path) override { return base_->exists(path); }
    io_status sync_dir(const std::string& dir) override { return base_->sync_dir(dir); }

protected:
    const std::shared_ptr<file_system> base_;  // the wrapped file system
};

}  // namespace ketch::io
