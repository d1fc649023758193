#include "txn/producer_ids.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ketch::txn {

producer_ids::producer_ids(std::string dir) : path_(std::move(dir) + "/producer_ids") {
    std::ifstream in(path_);
    int64_t v = 0;
    if (in >> v && v > 0) next_ = v;
    reserved_end_ = next_;
}

namespace {

// fsync of the directory holding `path`: a rename is durable only then.
bool sync_dir_of(const std::string& path) {
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

}  // namespace

void producer_ids::reserve_block() {
    if (source_) {
        next_ = source_();
        reserved_end_ = next_ + k_block;
        return;
    }
    int64_t end = next_ + k_block;
    std::string tmp = path_ + ".tmp";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot write " + tmp);
    std::string text = std::to_string(end) + "\n";
    bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size()) && ::fdatasync(fd) == 0;
    ::close(fd);
    if (!ok || std::rename(tmp.c_str(), path_.c_str()) != 0 || !sync_dir_of(path_))
        throw std::runtime_error("cannot persist producer ids");
    reserved_end_ = end;
}

int64_t producer_ids::next() {
    std::lock_guard lock(mu_);
    if (next_ >= reserved_end_) reserve_block();
    return next_++;
}

}  // namespace ketch::txn
