#include "io/pooling_file_system.h"

#include <list>
#include <map>
#include <mutex>
#include <vector>

namespace ketch::io {

class pooled_file;

// What the decorator and its files share (a file may outlive the decorator).
struct file_pool {
    file_pool(std::shared_ptr<file_system> b, size_t max) : base(std::move(b)), max_open(std::max<size_t>(max, 1)) {}

    std::shared_ptr<file_system> base;
    const size_t max_open;
    mutable std::mutex mu;
    std::map<std::string, std::vector<pooled_file*>, std::less<>> by_path;  // mu
    std::list<pooled_file*> lru;  // mu: open, unpinned files, most recent first

    // The open handle of `f`, reopened (and `f` made most recent) if needed.
    io_result<std::shared_ptr<file>> acquire(pooled_file& f);
    // Opens `f` if needed and keeps it open for good.
    io_status pin(pooled_file& f);  // mu held
    // Takes the handles beyond max_open from their files; the caller drops
    // them (closing them) after releasing mu, so a close holds no one up.
    std::vector<std::shared_ptr<file>> evict_beyond_max();  // mu held
    // Every pooled file at `path` or, for a directory, below it.
    template <class Fn>
    void each_under(const std::string& path, Fn fn);  // mu held
};

class pooled_file final : public file {
public:
    pooled_file(std::shared_ptr<file_pool> pool, std::string path, open_mode reopen, std::shared_ptr<file> f)
        : file(path), pool_(std::move(pool)), current_path_(std::move(path)), reopen_(reopen), real_(std::move(f)) {}

    ~pooled_file() override {
        std::lock_guard lk(pool_->mu);
        if (in_lru_) pool_->lru.erase(lru_pos_);
        auto it = pool_->by_path.find(current_path_);
        if (it != pool_->by_path.end()) {
            std::erase(it->second, this);
            if (it->second.empty()) pool_->by_path.erase(it);
        }
    }

    io_result<size_t> pread(uint64_t pos, std::span<uint8_t> out) const override {
        auto f = pool_->acquire(const_cast<pooled_file&>(*this));
        if (!f) return failure{f.error()};
        return (*f)->pread(pos, out);
    }
    io_status pwritev(uint64_t pos, std::span<const byte_view> parts) override {
        auto f = pool_->acquire(*this);
        if (!f) return failure{f.error()};
        return (*f)->pwritev(pos, parts);
    }
    io_status fdatasync() override {
        auto f = pool_->acquire(*this);
        if (!f) return failure{f.error()};
        return (*f)->fdatasync();
    }
    io_status truncate(uint64_t size) override {
        auto f = pool_->acquire(*this);
        if (!f) return failure{f.error()};
        return (*f)->truncate(size);
    }
    io_result<uint64_t> size() const override {
        auto f = pool_->acquire(const_cast<pooled_file&>(*this));
        if (!f) return failure{f.error()};
        return (*f)->size();
    }
    int native_handle() const override { return -1; }  // see io::held

    io_result<std::shared_ptr<file>> hold() { return pool_->acquire(*this); }

private:
    friend struct file_pool;
    friend class pooling_file_system;

    std::shared_ptr<file_pool> pool_;
    // The rest is guarded by pool_->mu.
    std::string current_path_;
    const open_mode reopen_;
    std::shared_ptr<file> real_;  // null while closed
    bool pinned_ = false;
    bool in_lru_ = false;
    std::list<pooled_file*>::iterator lru_pos_;
};

io_result<std::shared_ptr<file>> file_pool::acquire(pooled_file& f) {
    std::vector<std::shared_ptr<file>> evicted;  // closed after the lock (declared before it)
    std::lock_guard lk(mu);
    if (f.real_) {
        if (f.in_lru_ && f.lru_pos_ != lru.begin()) lru.splice(lru.begin(), lru, f.lru_pos_);
        return f.real_;
    }
    auto opened = base->open(f.current_path_, f.reopen_);
    if (!opened) return failure{opened.error()};
    f.real_ = std::move(*opened);
    lru.push_front(&f);
    f.lru_pos_ = lru.begin();
    f.in_lru_ = true;
    evicted = evict_beyond_max();
    return f.real_;
}

io_status file_pool::pin(pooled_file& f) {
    if (f.pinned_) return ok_v;
    if (!f.real_) {
        auto opened = base->open(f.current_path_, f.reopen_);
        if (!opened) return failure{opened.error()};
        f.real_ = std::move(*opened);
    }
    if (f.in_lru_) lru.erase(f.lru_pos_);
    f.in_lru_ = false;
    f.pinned_ = true;
    return ok_v;
}

std::vector<std::shared_ptr<file>> file_pool::evict_beyond_max() {
    std::vector<std::shared_ptr<file>> out;
    while (lru.size() > max_open) {
        pooled_file* victim = lru.back();
        lru.pop_back();
        victim->in_lru_ = false;
        out.push_back(std::move(victim->real_));  // closed when dropped, unless a reader holds it (io::held)
    }
    return out;
}

template <class Fn>
void file_pool::each_under(const std::string& path, Fn fn) {
    if (auto it = by_path.find(path); it != by_path.end())
        for (auto* f : std::vector<pooled_file*>(it->second)) fn(*f);
    std::string prefix = path + "/";
    std::vector<pooled_file*> below;
    for (auto it = by_path.lower_bound(prefix); it != by_path.end() && it->first.starts_with(prefix); ++it)
        below.insert(below.end(), it->second.begin(), it->second.end());
    for (auto* f : below) fn(*f);
}

pooling_file_system::pooling_file_system(std::shared_ptr<file_system> base, size_t max_open,
                                         std::function<bool(std::string_view)> pooled)
    : forwarding_file_system(std::move(base)),
      pooled_(std::move(pooled)),
      pool_(std::make_shared<file_pool>(base_, max_open)) {}

pooling_file_system::~pooling_file_system() = default;

io_result<std::shared_ptr<file>> pooling_file_system::open(const std::string& path, open_mode mode) {
    if (!pooled_ || !pooled_(path)) return base_->open(path, mode);
    auto opened = base_->open(path, mode);
    if (!opened) return failure{opened.error()};
    auto reopen = mode == open_mode::read_only ? open_mode::read_only : open_mode::read_write;
    auto f = std::make_shared<pooled_file>(pool_, path, reopen, std::move(*opened));
    std::vector<std::shared_ptr<file>> evicted;  // closed after the lock (declared before it)
    std::lock_guard lk(pool_->mu);
    pool_->by_path[path].push_back(f.get());
    pool_->lru.push_front(f.get());
    f->lru_pos_ = pool_->lru.begin();
    f->in_lru_ = true;
    evicted = pool_->evict_beyond_max();
    return std::shared_ptr<file>(std::move(f));
}

io_status pooling_file_system::rename(const std::string& from, const std::string& to) {
    std::lock_guard lk(pool_->mu);
    // Files at `to` lose their name: keep them readable through their handles.
    io_status pinned = ok_v;
    pool_->each_under(to, [&](pooled_file& f) {
        if (pinned) pinned = pool_->pin(f);
    });
    if (!pinned) return pinned;
    auto st = base_->rename(from, to);
    if (!st) return st;
    std::vector<pooled_file*> moved;
    pool_->each_under(from, [&](pooled_file& f) { moved.push_back(&f); });
    for (auto* f : moved) {
        auto it = pool_->by_path.find(f->current_path_);
        std::erase(it->second, f);
        if (it->second.empty()) pool_->by_path.erase(it);
        f->current_path_ = to + f->current_path_.substr(from.size());
        pool_->by_path[f->current_path_].push_back(f);
    }
    return ok_v;
}

io_status pooling_file_system::remove(const std::string& path) {
    std::lock_guard lk(pool_->mu);
    io_status pinned = ok_v;
    pool_->each_under(path, [&](pooled_file& f) {
        if (pinned) pinned = pool_->pin(f);
    });
    if (!pinned) return pinned;
    return base_->remove(path);
}

size_t pooling_file_system::open_count() const {
    std::lock_guard lk(pool_->mu);
    return pool_->lru.size();
}

size_t pooling_file_system::max_open() const { return pool_->max_open; }

std::shared_ptr<file> held(const std::shared_ptr<file>& f) {
    auto* p = dynamic_cast<pooled_file*>(f.get());
    if (!p) return f;
    auto h = p->hold();
    return h ? std::move(*h) : nullptr;
}

}  // namespace ketch::io
