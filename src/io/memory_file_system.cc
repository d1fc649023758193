#include "io/memory_file_system.h"

#include <algorithm>
#include <cstring>

#include "base/clock.h"

namespace ketch::io {

// One file's bytes. `mu` guards everything; handles and the name table share it.
struct memory_file_system::file_data {
    std::mutex mu;
    bytes data;
    bytes durable;  // content at the last successful fdatasync
    int64_t mtime_ms = 0;
};

namespace {

using file_data = memory_file_system::file_data;

// "a//b/" -> "a/b"; keeps a leading '/'.
std::string normalise(std::string_view p) {
    std::string out;
    out.reserve(p.size());
    for (char c : p) {
        if (c == '/' && !out.empty() && out.back() == '/') continue;
        out += c;
    }
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    return out;
}

io_error err(io_errc k, const char* what, const std::string& path) { return io_error{k, 0, path, what}; }

class memory_file final : public file {
public:
    memory_file(std::string path, std::shared_ptr<file_data> d, std::function<int64_t()> clock)
        : file(std::move(path)), d_(std::move(d)), clock_(std::move(clock)) {}

    io_result<size_t> pread(uint64_t pos, std::span<uint8_t> out) const override {
        std::lock_guard lk(d_->mu);
        if (pos >= d_->data.size()) return size_t(0);
        size_t n = std::min<size_t>(out.size(), d_->data.size() - pos);
        std::memcpy(out.data(), d_->data.data() + pos, n);
        return n;
    }

    io_status pwritev(uint64_t pos, std::span<const byte_view> parts) override {
        size_t total = 0;
        for (auto p : parts) total += p.size();
        std::lock_guard lk(d_->mu);
        if (d_->data.size() < pos + total) d_->data.resize(pos + total);
        for (auto p : parts) {
            if (!p.empty()) std::memcpy(d_->data.data() + pos, p.data(), p.size());
            pos += p.size();
        }
        d_->mtime_ms = clock_();
        return ok_v;
    }

    io_status fdatasync() override {
        std::lock_guard lk(d_->mu);
        d_->durable = d_->data;
        return ok_v;
    }

    io_status truncate(uint64_t size) override {
        std::lock_guard lk(d_->mu);
        d_->data.resize(size);
        d_->mtime_ms = clock_();
        return ok_v;
    }

    io_result<uint64_t> size() const override {
        std::lock_guard lk(d_->mu);
        return uint64_t(d_->data.size());
    }

private:
    std::shared_ptr<file_data> d_;
    std::function<int64_t()> clock_;
};

}  // namespace

memory_file_system::memory_file_system(std::function<int64_t()> clock_ms) : clock_ms_(std::move(clock_ms)) {
    if (!clock_ms_) {
        clock_ms_ = ketch::wall_ms;
    }
}

memory_file_system::~memory_file_system() = default;

bool memory_file_system::parent_exists_locked(const std::string& path) const {
    auto parent = parent_path(path);
    if (parent == "." || parent == "/") return true;
    auto it = entries_.find(parent);
    return it != entries_.end() && it->second.is_dir;
}

io_result<std::shared_ptr<file>> memory_file_system::open(const std::string& raw, open_mode mode) {
    auto path = normalise(raw);
    std::lock_guard lk(mu_);
    auto it = entries_.find(path);
    if (it != entries_.end() && it->second.is_dir) return failure{err(io_errc::invalid, "open (directory)", path)};
    std::shared_ptr<file_data> d;
    if (it == entries_.end()) {
        if (mode == open_mode::read_only || mode == open_mode::read_write)
            return failure{err(io_errc::not_found, "open", path)};
        if (!parent_exists_locked(path)) return failure{err(io_errc::not_found, "open", path)};
        d = std::make_shared<file_data>();
        d->mtime_ms = clock_ms_();
        entries_[path] = entry{false, d};
    } else {
        if (mode == open_mode::create_new) return failure{err(io_errc::exists, "open", path)};
        d = it->second.data;
        if (mode == open_mode::truncate) {
            std::lock_guard dl(d->mu);
            d->data.clear();
            d->mtime_ms = clock_ms_();
        }
    }
    return std::shared_ptr<file>(std::make_shared<memory_file>(path, std::move(d), clock_ms_));
}

io_status memory_file_system::rename(const std::string& raw_from, const std::string& raw_to) {
    auto from = normalise(raw_from), to = normalise(raw_to);
    std::lock_guard lk(mu_);
    auto it = entries_.find(from);
    if (it == entries_.end()) return failure{err(io_errc::not_found, "rename", from)};
    if (!parent_exists_locked(to)) return failure{err(io_errc::not_found, "rename", to)};
    if (from == to) return ok_v;
    auto dst = entries_.find(to);
    if (dst != entries_.end() && dst->second.is_dir != it->second.is_dir)
        return failure{err(io_errc::invalid, "rename (file/directory mismatch)", to)};
    if (!it->second.is_dir) {
        entries_[to] = it->second;
        entries_.erase(from);
        return ok_v;
    }
    // Directory: the target must be absent or empty; move every key below it.
    auto prefix_to = to + "/";
    if (dst != entries_.end()) {
        auto child = entries_.lower_bound(prefix_to);
        if (child != entries_.end() && child->first.starts_with(prefix_to))
            return failure{err(io_errc::not_empty, "rename", to)};
    }
    if (to.starts_with(from + "/")) return failure{err(io_errc::invalid, "rename (into itself)", to)};
    std::map<std::string, entry> moved;
    auto prefix_from = from + "/";
    for (auto c = entries_.lower_bound(prefix_from); c != entries_.end() && c->first.starts_with(prefix_from);) {
        moved[to + c->first.substr(from.size())] = c->second;
        c = entries_.erase(c);
    }
    moved[to] = it->second;
    entries_.erase(from);
    for (auto& [k, v] : moved) entries_[k] = std::move(v);
    return ok_v;
}

io_status memory_file_system::remove(const std::string& raw) {
    auto path = normalise(raw);
    std::lock_guard lk(mu_);
    auto it = entries_.find(path);
    if (it == entries_.end()) return failure{err(io_errc::not_found, "remove", path)};
    if (it->second.is_dir) {
        auto child = entries_.lower_bound(path + "/");
        if (child != entries_.end() && child->first.starts_with(path + "/"))
            return failure{err(io_errc::not_empty, "remove", path)};
    }
    entries_.erase(it);
    return ok_v;
}

io_result<std::vector<dir_entry>> memory_file_system::list_dir(const std::string& raw) {
    auto dir = normalise(raw);
    std::lock_guard lk(mu_);
    if (dir != "." && dir != "/") {
        auto it = entries_.find(dir);
        if (it == entries_.end()) return failure{err(io_errc::not_found, "opendir", dir)};
        if (!it->second.is_dir) return failure{err(io_errc::invalid, "opendir (not a directory)", dir)};
    }
    std::string prefix = dir == "/" ? "/" : dir == "." ? "" : dir + "/";
    std::vector<dir_entry> out;
    for (auto c = entries_.lower_bound(prefix); c != entries_.end() && c->first.starts_with(prefix); ++c) {
        auto rest = c->first.substr(prefix.size());
        if (rest.empty() || rest.find('/') != std::string::npos) continue;
        out.push_back({rest, c->second.is_dir});
    }
    return out;
}

io_status memory_file_system::mkdir(const std::string& raw) {
    auto dir = normalise(raw);
    if (dir == "." || dir == "/" || dir.empty()) return ok_v;
    std::lock_guard lk(mu_);
    // Create each missing component from the top.
    for (size_t pos = dir.find('/', 1);; pos = dir.find('/', pos + 1)) {
        auto part = pos == std::string::npos ? dir : dir.substr(0, pos);
        auto it = entries_.find(part);
        if (it == entries_.end())
            entries_[part] = entry{true, nullptr};
        else if (!it->second.is_dir)
            return failure{err(io_errc::exists, "mkdir (file in the way)", part)};
        if (pos == std::string::npos) break;
    }
    return ok_v;
}

io_result<memory_file_system::file_stat> memory_file_system::stat(const std::string& raw) const {
    auto path = normalise(raw);
    std::lock_guard lk(mu_);
    auto it = entries_.find(path);
    if (it == entries_.end()) return failure{err(io_errc::not_found, "stat", path)};
    if (it->second.is_dir) return file_stat{};
    std::lock_guard dl(it->second.data->mu);
    return file_stat{uint64_t(it->second.data->data.size()), it->second.data->mtime_ms};
}

io_result<uint64_t> memory_file_system::file_size(const std::string& path) {
    auto s = stat(path);
    if (!s.ok()) return failure{s.error()};
    return s->size;
}

io_result<int64_t> memory_file_system::modified_ms(const std::string& path) {
    auto s = stat(path);
    if (!s.ok()) return failure{s.error()};
    return s->mtime_ms;
}

io_status memory_file_system::set_modified_ms(const std::string& raw, int64_t ms) {
    auto path = normalise(raw);
    std::lock_guard lk(mu_);
    auto it = entries_.find(path);
    if (it == entries_.end() || it->second.is_dir) return failure{err(io_errc::not_found, "utimes", path)};
    std::lock_guard dl(it->second.data->mu);
    it->second.data->mtime_ms = ms;
    return ok_v;
}

io_result<bool> memory_file_system::exists(const std::string& raw) {
    auto path = normalise(raw);
    if (path == "." || path == "/") return true;
    std::lock_guard lk(mu_);
    return entries_.count(path) > 0;
}

io_status memory_file_system::sync_dir(const std::string& raw) {
    auto dir = normalise(raw);
    if (dir == "." || dir == "/") return ok_v;
    std::lock_guard lk(mu_);
    auto it = entries_.find(dir);
    if (it == entries_.end() || !it->second.is_dir) return failure{err(io_errc::not_found, "fsync dir", dir)};
    return ok_v;
}

void memory_file_system::simulate_crash() {
    std::lock_guard lk(mu_);
    for (auto& [path, e] : entries_) {
        if (e.is_dir) continue;
        std::lock_guard dl(e.data->mu);
        e.data->data = e.data->durable;
    }
}

}  // namespace ketch::io
