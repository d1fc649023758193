#include "io/posix_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace ketch::io {
namespace {

class posix_file final : public file {
public:
    posix_file(std::string path, int fd) : file(std::move(path)), fd_(fd) {}
    ~posix_file() override { ::close(fd_); }

    io_result<size_t> pread(uint64_t pos, std::span<uint8_t> out) const override {
        size_t done = 0;
        while (done < out.size()) {
            ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, off_t(pos + done));
            if (n < 0) {
                if (errno == EINTR) continue;
                return failure{from_errno(errno, "pread", path())};
            }
            if (n == 0) break;  // end of file
            done += size_t(n);
        }
        return done;
    }

    io_status pwritev(uint64_t pos, std::span<const byte_view> parts) override {
        // Build the iovec list once; advance through it on short writes.
        constexpr size_t k_max_iov = 64;
        iovec iov[k_max_iov];
        size_t cnt = 0, total = 0;
        for (auto p : parts) {
            if (p.empty()) continue;
            if (cnt == k_max_iov) return failure{io_error{io_errc::invalid, 0, path(), "pwritev: too many parts"}};
            iov[cnt++] = iovec{const_cast<uint8_t*>(p.data()), p.size()};
            total += p.size();
        }
        size_t first = 0, written = 0;
        while (written < total) {
            ssize_t n = ::pwritev(fd_, iov + first, int(std::min<size_t>(cnt - first, IOV_MAX)), off_t(pos + written));
            if (n < 0) {
                if (errno == EINTR) continue;
                return failure{from_errno(errno, "pwrite", path())};
            }
            written += size_t(n);
            size_t left = size_t(n);
            while (first < cnt && left >= iov[first].iov_len) left -= iov[first++].iov_len;
            if (first < cnt && left) {
                iov[first].iov_base = static_cast<uint8_t*>(iov[first].iov_base) + left;
                iov[first].iov_len -= left;
            }
        }
        return ok_v;
    }

    io_status fdatasync() override {
        while (::fdatasync(fd_) != 0) {
            if (errno == EINTR) continue;
            return failure{from_errno(errno, "fdatasync", path())};
        }
        return ok_v;
    }

    io_status truncate(uint64_t size) override {
        while (::ftruncate(fd_, off_t(size)) != 0) {
            if (errno == EINTR) continue;
            return failure{from_errno(errno, "ftruncate", path())};
        }
        return ok_v;
    }

    io_result<uint64_t> size() const override {
        struct stat st;
        if (::fstat(fd_, &st) != 0) return failure{from_errno(errno, "fstat", path())};
        return uint64_t(st.st_size);
    }

    int native_handle() const override { return fd_; }

private:
    int fd_;
};

int open_flags(open_mode m) {
    switch (m) {
        case open_mode::read_only: return O_RDONLY;
        case open_mode::read_write: return O_RDWR;
        case open_mode::create: return O_RDWR | O_CREAT;
        case open_mode::create_new: return O_RDWR | O_CREAT | O_EXCL;
        case open_mode::truncate: return O_RDWR | O_CREAT | O_TRUNC;
    }
    return O_RDONLY;
}

}  // namespace

io_result<std::shared_ptr<file>> posix_file_system::open(const std::string& path, open_mode mode) {
    int fd;
    do {
        fd = ::open(path.c_str(), open_flags(mode) | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return failure{from_errno(errno, "open", path)};
    return std::shared_ptr<file>(std::make_shared<posix_file>(path, fd));
}

io_status posix_file_system::rename(const std::string& from, const std::string& to) {
    if (::rename(from.c_str(), to.c_str()) != 0) return failure{from_errno(errno, "rename", from + " -> " + to)};
    return ok_v;
}

io_status posix_file_system::remove(const std::string& path) {
    if (::unlink(path.c_str()) == 0) return ok_v;
    if (errno == EISDIR || errno == EPERM) {
        if (::rmdir(path.c_str()) == 0) return ok_v;
    }
    return failure{from_errno(errno, "remove", path)};
}

io_result<std::vector<dir_entry>> posix_file_system::list_dir(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return failure{from_errno(errno, "opendir", dir)};
    std::vector<dir_entry> out;
    errno = 0;
    while (dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        bool is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN) {
            struct stat st;
            is_dir = ::stat(join_path(dir, name).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        }
        out.push_back({std::move(name), is_dir});
    }
    int err = errno;
    ::closedir(d);
    if (err) return failure{from_errno(err, "readdir", dir)};
    return out;
}

io_status posix_file_system::mkdir(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0755) == 0) return ok_v;
    if (errno == EEXIST) {
        struct stat st;
        if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return ok_v;
        return failure{from_errno(ENOTDIR, "mkdir", dir)};
    }
    if (errno == ENOENT) {
        auto parent = parent_path(dir);
        if (parent != dir && parent != "." && parent != "/") {
            if (auto st = mkdir(parent); !st) return st;
            if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return ok_v;
        }
    }
    return failure{from_errno(errno, "mkdir", dir)};
}

io_result<uint64_t> posix_file_system::file_size(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return failure{from_errno(errno, "stat", path)};
    return uint64_t(st.st_size);
}

io_result<int64_t> posix_file_system::modified_ms(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return failure{from_errno(errno, "stat", path)};
    return int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

io_result<bool> posix_file_system::exists(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return failure{from_errno(errno, "stat", path)};
}

io_status posix_file_system::sync_dir(const std::string& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return failure{from_errno(errno, "open", dir)};
    int rc;
    do {
        rc = ::fsync(fd);
    } while (rc != 0 && errno == EINTR);
    int err = errno;
    ::close(fd);
    if (rc != 0) return failure{from_errno(err, "fsync", dir)};
    return ok_v;
}

}  // namespace ketch::io
