#include "io/fault_file_system.h"

#include <cerrno>

namespace ketch::io {
namespace {

class fault_file final : public file {
public:
    fault_file(std::shared_ptr<file> base, fault_file_system* fs)
        : file(base->path()), base_(std::move(base)), fs_(fs) {}

    io_result<size_t> pread(uint64_t pos, std::span<uint8_t> out) const override { return base_->pread(pos, out); }

    io_status pwritev(uint64_t pos, std::span<const byte_view> parts) override {
        size_t total = 0;
        for (auto p : parts) total += p.size();
        auto v = fs_->before_write(path(), total);
        if (!v.error) return base_->pwritev(pos, parts);
        // Store the prefix that "fit", then report the failure.
        std::vector<byte_view> prefix;
        size_t left = v.allowed;
        for (auto p : parts) {
            if (!left) break;
            auto n = std::min(left, p.size());
            prefix.push_back(p.first(n));
            left -= n;
        }
        if (!prefix.empty()) {
            if (auto st = base_->pwritev(pos, prefix); !st) return st;
        }
        return failure{*v.error};
    }

    io_status fdatasync() override {
        if (auto e = fs_->before_sync(path())) return failure{*e};
        return base_->fdatasync();
    }

    io_status truncate(uint64_t size) override { return base_->truncate(size); }
    io_result<uint64_t> size() const override { return base_->size(); }
    int native_handle() const override { return base_->native_handle(); }

private:
    std::shared_ptr<file> base_;
    fault_file_system* fs_;  // outlives its files (documented on the class)
};

}  // namespace

fault_file_system::fault_file_system(std::shared_ptr<file_system> base) : forwarding_file_system(std::move(base)) {}
fault_file_system::~fault_file_system() = default;

void fault_file_system::set_space_left(uint64_t bytes) {
    std::lock_guard lk(mu_);
    space_left_ = bytes;
}

void fault_file_system::clear_space_limit() {
    std::lock_guard lk(mu_);
    space_left_.reset();
}

void fault_file_system::fail_next_writes(int count, io_errc kind) {
    std::lock_guard lk(mu_);
    fail_writes_ = count;
    fail_writes_kind_ = kind;
}

void fault_file_system::fail_next_syncs(int count, io_errc kind) {
    std::lock_guard lk(mu_);
    fail_syncs_ = count;
    fail_syncs_kind_ = kind;
}

void fault_file_system::set_before_sync(std::function<void(const std::string&)> hook) {
    std::lock_guard lk(mu_);
    before_sync_hook_ = hook ? std::make_shared<std::function<void(const std::string&)>>(std::move(hook)) : nullptr;
}

void fault_file_system::set_fault_rule(fault_rule rule) {
    std::lock_guard lk(mu_);
    rule_ = rule ? std::make_shared<fault_rule>(std::move(rule)) : nullptr;
}

std::optional<io_errc> fault_file_system::ask_rule(const std::string& path, bool sync) {
    std::shared_ptr<fault_rule> rule;
    {
        std::lock_guard lk(mu_);
        rule = rule_;
    }
    if (!rule) return std::nullopt;
    return (*rule)(path, sync);
}

void fault_file_system::set_path_filter(std::string substring) {
    std::lock_guard lk(mu_);
    filter_ = std::move(substring);
}

bool fault_file_system::matches_locked(const std::string& path) const {
    return filter_.empty() || path.find(filter_) != std::string::npos;
}

fault_file_system::write_verdict fault_file_system::before_write(const std::string& path, size_t n) {
    writes_.fetch_add(1);
    if (auto kind = ask_rule(path, false))
        return {0, io_error{*kind, *kind == io_errc::no_space ? ENOSPC : EIO, path, "pwrite (injected)"}};
    std::lock_guard lk(mu_);
    if (!matches_locked(path)) {
        bytes_.fetch_add(n);
        return {n, std::nullopt};
    }
    if (fail_writes_ > 0) {
        --fail_writes_;
        return {0, io_error{fail_writes_kind_, 0, path, "pwrite (injected)"}};
    }
    if (space_left_ && *space_left_ < n) {
        size_t fit = size_t(*space_left_);
        *space_left_ = 0;
        bytes_.fetch_add(fit);
        return {fit, io_error{io_errc::no_space, ENOSPC, path, "pwrite (injected)"}};
    }
    if (space_left_) *space_left_ -= n;
    bytes_.fetch_add(n);
    return {n, std::nullopt};
}

std::optional<io_error> fault_file_system::before_sync(const std::string& path) {
    std::shared_ptr<std::function<void(const std::string&)>> hook;
    {
        std::lock_guard lk(mu_);
        hook = before_sync_hook_;
    }
    if (hook) (*hook)(path);
    syncs_.fetch_add(1);
    if (auto kind = ask_rule(path, true)) return io_error{*kind, EIO, path, "fdatasync (injected)"};
    std::lock_guard lk(mu_);
    if (matches_locked(path) && fail_syncs_ > 0) {
        --fail_syncs_;
        return io_error{fail_syncs_kind_, EIO, path, "fdatasync (injected)"};
    }
    return std::nullopt;
}

io_result<std::shared_ptr<file>> fault_file_system::open(const std::string& path, open_mode mode) {
    auto f = base_->open(path, mode);
    if (!f) return f;
    return std::shared_ptr<file>(std::make_shared<fault_file>(std::move(*f), this));
}

io_status fault_file_system::sync_dir(const std::string& dir) {
    dir_syncs_.fetch_add(1);
    return base_->sync_dir(dir);
}

}  // namespace ketch::io
