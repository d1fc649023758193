#include "log/log_manager.h"

#include "log/log_format.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>

namespace ketch::log {
namespace {

constexpr std::string_view k_clean_marker = "clean-shutdown";

std::string text_of(const bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

// Runs fn(0) .. fn(n - 1) on up to `threads` threads (this one included).
void run_parallel(size_t n, int threads, const std::function<void(size_t)>& fn) {
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    };
    size_t extra = std::min<size_t>(n / 16, size_t(std::max(threads, 1) - 1));
    std::vector<std::thread> pool;
    for (size_t t = 0; t < extra; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
}

}  // namespace

log_manager::log_manager(options opt) : opt_(std::move(opt)) {}

log_manager::~log_manager() {
    if (auto st = close(); !st) spdlog::error("log manager {}: close: {}", opt_.data_dir, st.error().message);
}

log_result<std::unique_ptr<log_manager>> log_manager::open(options opt) {
    if (!opt.fs || opt.data_dir.empty())
        return failure{log_error{log_errc::invalid_argument, "log_manager needs fs and data_dir"}};
    if (opt.max_open_segment_files > 0) {
        opt.fs = std::make_shared<io::pooling_file_system>(
            opt.fs, opt.max_open_segment_files, [](std::string_view p) { return p.ends_with(k_log_suffix); });
    }
    std::unique_ptr<log_manager> m(new log_manager(std::move(opt)));
    if (auto st = m->load(); !st) {
        m->closed_ = true;
        return failure{st.error()};
    }
    return m;
}

log_result<std::shared_ptr<local_log>> log_manager::open_log(const std::string& dir, bool clean,
                                                             const topic_partition& tp,
                                                             std::function<io::io_status()> on_first_sync) {
    local_log::options o;
    o.on_first_sync = std::move(on_first_sync);
    o.fs = opt_.fs;
    o.dir = dir;
    o.create_dir = false;  // listed by load, made by create_log
    o.config = opt_.default_config;
    o.clock_ms = opt_.clock_ms;
    o.record_timestamps = opt_.record_timestamps;
    o.flusher = flusher_;
    o.clean_shutdown = clean;
    o.on_marker = [hook = marker_hook_, tp] {
        if (hook->fn) hook->fn(tp);
    };
    return local_log::open(std::move(o));
}

log_status log_manager::load() {
    auto& fs = *opt_.fs;
    if (auto st = fs.mkdir(opt_.data_dir); !st) return failure{from_io(st.error())};
    auto marker = io::join_path(opt_.data_dir, k_clean_marker);
    auto ex = fs.exists(marker);
    if (!ex) return failure{from_io(ex.error())};
    clean_at_open_ = *ex;
    if (clean_at_open_) {
        // From here on a crash is an unclean shutdown.
        if (auto st = fs.remove(marker); !st) return failure{from_io(st.error())};
        if (auto st = fs.sync_dir(opt_.data_dir); !st) return failure{from_io(st.error())};
    }
    flusher_ = std::make_shared<log::flusher>(opt_.flusher_options);

    auto entries = fs.list_dir(opt_.data_dir);
    if (!entries) return failure{from_io(entries.error())};
    std::vector<std::string> names;
    for (const auto& e : *entries) {
        if (!e.is_dir) continue;
        auto dir = io::join_path(opt_.data_dir, e.name);
        if (e.name.starts_with(k_deleting_prefix)) {
            if (auto st = io::remove_all(fs, dir); !st) spdlog::warn("removing {}: {}", dir, st.error().message());
            continue;
        }
        names.push_back(e.name);
    }
    // Logs are independent: open them in parallel, keep them in name order.
    struct opened {
        std::optional<topic_partition> tp;
        log_result<std::shared_ptr<local_log>> log = failure{log_error{log_errc::invalid_argument, "not opened"}};
    };
    std::vector<opened> out(names.size());
    run_parallel(names.size(), opt_.open_threads, [&](size_t i) {
        const auto& name = names[i];
        auto dir = io::join_path(opt_.data_dir, name);
        // A name that is "<topic>-<partition>" exactly says what the partition
        // file says (the partition number follows the last '-'); only a
        // shortened name (long topics, log_format.md) needs the file.
        std::optional<topic_partition> tp = parse_partition_dir_name(name);
        if (!tp || partition_dir_name(*tp) != name) {
            tp.reset();
            if (auto meta = io::read_file(fs, io::join_path(dir, k_partition_meta_file)))
                tp = parse_partition_meta(text_of(*meta));
        }
        if (!tp || partition_dir_name(*tp) != name) {
            spdlog::warn("log manager: ignoring directory {} (not a partition)", dir);
            return;
        }
        out[i].tp = tp;
        out[i].log = open_log(dir, clean_at_open_, *tp);
    });
    for (size_t i = 0; i < out.size(); ++i) {
        if (!out[i].tp) continue;
        auto& log = out[i].log;
        if (!log) {
            return failure{
                log_error{log.error().code, io::join_path(opt_.data_dir, names[i]) + ": " + log.error().message}};
        }
        logs_[*out[i].tp] = std::move(*log);
    }
    return ok_v;
}

log_result<std::shared_ptr<local_log>> log_manager::create_log(const topic_partition& tp, const log_config& config) {
    auto& fs = *opt_.fs;
    auto dir = io::join_path(opt_.data_dir, partition_dir_name(tp));
    if (auto st = fs.mkdir(dir); !st) return failure{from_io(st.error())};
    // Written now, synced with the log's first data (on_first_sync). Until
    // then a machine crash may leave it empty: open then goes by the
    // directory's name, as for a partition file that is missing.
    auto meta_path = io::join_path(dir, k_partition_meta_file);
    {
        auto meta = format_partition_meta(tp);
        auto f = fs.open(meta_path, io::open_mode::truncate);
        if (!f) return failure{from_io(f.error())};
        if (auto st = (*f)->pwrite(0, as_bytes(meta)); !st) return failure{from_io(st.error())};
    }
    auto on_first_sync = [fs = opt_.fs, meta_path, data_dir = opt_.data_dir]() -> io::io_status {
        auto f = fs->open(meta_path, io::open_mode::read_write);
        if (!f) return failure{f.error()};
        if (auto st = (*f)->fdatasync(); !st) return st;
        return fs->sync_dir(data_dir);
    };
    auto log = open_log(dir, false, tp, std::move(on_first_sync));
    if (!log) return failure{log.error()};
    (*log)->set_config(config);
    return log;
}

log_result<std::shared_ptr<partition_log>> log_manager::get_or_create(const topic_partition& tp,
                                                                      const log_config& config) {
    if (!is_valid_topic_name(tp.topic) || tp.partition < 0)
        return failure{log_error{log_errc::invalid_argument,
                                 "invalid topic partition " + tp.topic + "-" + std::to_string(tp.partition)}};
    std::promise<log_result<std::shared_ptr<local_log>>> made;
    creation other;
    {
        std::lock_guard lk(mu_);
        if (closed_) return failure{log_error{log_errc::closed, "log manager closed"}};
        if (auto it = logs_.find(tp); it != logs_.end()) return std::shared_ptr<partition_log>(it->second);
        if (auto it = creating_.find(tp); it != creating_.end())
            other = it->second;
        else
            creating_.emplace(tp, made.get_future().share());
    }
    if (other.valid()) {
        // Another thread is creating it: its log (or its error) is ours.
        auto r = other.get();
        if (!r) return failure{r.error()};
        return std::shared_ptr<partition_log>(*r);
    }
    // Other partitions are created, opened and read meanwhile: no lock here.
    auto log = create_log(tp, config);
    {
        std::lock_guard lk(mu_);
        creating_.erase(tp);
        if (log && closed_) {
            (void)(*log)->close();
            log = failure{log_error{log_errc::closed, "log manager closed"}};
        }
        if (log) logs_[tp] = *log;
    }
    made.set_value(log);
    if (!log) return failure{log.error()};
    return std::shared_ptr<partition_log>(std::move(*log));
}

void log_manager::wait_creation(std::unique_lock<std::mutex>& lk, const topic_partition& tp) {
    for (auto it = creating_.find(tp); it != creating_.end(); it = creating_.find(tp)) {
        auto other = it->second;
        lk.unlock();
        other.wait();
        lk.lock();
    }
}

std::shared_ptr<partition_log> log_manager::get(const topic_partition& tp) const {
    std::lock_guard lk(mu_);
    auto it = logs_.find(tp);
    return it == logs_.end() ? nullptr : it->second;
}

std::vector<topic_partition> log_manager::partitions() const {
    std::lock_guard lk(mu_);
    std::vector<topic_partition> out;
    for (const auto& [tp, _] : logs_) out.push_back(tp);
    return out;
}

log_status log_manager::remove(const topic_partition& tp) { return remove(std::vector<topic_partition>{tp}); }

log_status log_manager::remove(const std::vector<topic_partition>& tps) {
    auto& fs = *opt_.fs;
    std::vector<std::string> doomed;
    log_status result = ok_v;
    {
        std::unique_lock lk(mu_);
        for (const auto& tp : tps) {
            // A creation in flight ends first: it must not add the log back after.
            wait_creation(lk, tp);
            auto it = logs_.find(tp);
            if (it == logs_.end()) continue;
            auto log = it->second;
            logs_.erase(it);
            log->discard();
            auto to = io::join_path(opt_.data_dir,
                                    std::string(k_deleting_prefix) + std::to_string(++delete_seq_) + "-" +
                                        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
            // Rename first: a crash mid-deletion leaves a "~deleting-" directory, not a
            // half-deleted partition that would be opened again.
            if (auto st = fs.rename(log->dir(), to); !st) {
                result = failure{from_io(st.error())};
                continue;
            }
            doomed.push_back(std::move(to));
        }
        if (doomed.empty()) return result;
        if (auto st = fs.sync_dir(opt_.data_dir); !st) return failure{from_io(st.error())};
    }
    // The names are unique and no longer partitions: removed without the lock.
    for (const auto& d : doomed)
        if (auto st = io::remove_all(fs, d); !st) result = failure{from_io(st.error())};
    return result;
}

log_status log_manager::close() {
    std::map<topic_partition, std::shared_ptr<local_log>> logs;
    {
        std::unique_lock lk(mu_);
        if (closed_) return ok_v;
        closed_ = true;
        // Creations in flight see closed_ and close their log themselves:
        // wait for them, so none is open when the marker is written.
        while (!creating_.empty()) wait_creation(lk, creating_.begin()->first);
        logs.swap(logs_);
    }
    std::vector<std::shared_ptr<local_log>> list;
    for (auto& [tp, log] : logs) list.push_back(log);
    std::vector<log_status> results(list.size(), ok_v);
    run_parallel(list.size(), opt_.open_threads, [&](size_t i) { results[i] = list[i]->close(); });
    log_status result = ok_v;
    for (size_t i = 0; i < list.size(); ++i) {
        if (!results[i]) {
            spdlog::error("closing {}: {}", list[i]->dir(), results[i].error().message);
            result = results[i];
        }
    }
    if (flusher_) flusher_->stop();
    if (result) {
        auto marker = io::join_path(opt_.data_dir, k_clean_marker);
        if (auto st = io::write_file_atomically(*opt_.fs, marker, {}); !st) return failure{from_io(st.error())};
    }
    return result;
}

}  // namespace ketch::log
