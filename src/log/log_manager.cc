#include "log/log_manager.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace ketch::log {
namespace {

constexpr std::string_view k_clean_marker = "clean-shutdown";

std::string text_of(const bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

}  // namespace

log_manager::log_manager(options opt) : opt_(std::move(opt)) {}

log_manager::~log_manager() {
    if (auto st = close(); !st) spdlog::error("log manager {}: close: {}", opt_.data_dir, st.error().message);
}

log_result<std::unique_ptr<log_manager>> log_manager::open(options opt) {
    if (!opt.fs || opt.data_dir.empty())
        return failure{log_error{log_errc::invalid_argument, "log_manager needs fs and data_dir"}};
    std::unique_ptr<log_manager> m(new log_manager(std::move(opt)));
    if (auto st = m->load(); !st) {
        m->closed_ = true;
        return failure{st.error()};
    }
    return m;
}

log_result<std::shared_ptr<local_log>> log_manager::open_log(const std::string& dir, bool clean,
                                                             const topic_partition& tp) {
    local_log::options o;
    o.fs = opt_.fs;
    o.dir = dir;
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
    for (const auto& e : *entries) {
        if (!e.is_dir) continue;
        auto dir = io::join_path(opt_.data_dir, e.name);
        if (e.name.starts_with(k_deleting_prefix)) {
            if (auto st = io::remove_all(fs, dir); !st) spdlog::warn("removing {}: {}", dir, st.error().message());
            continue;
        }
        std::optional<topic_partition> tp;
        if (auto meta = io::read_file(fs, io::join_path(dir, k_partition_meta_file)))
            tp = parse_partition_meta(text_of(*meta));
        if (!tp) tp = parse_partition_dir_name(e.name);
        if (!tp || partition_dir_name(*tp) != e.name) {
            spdlog::warn("log manager: ignoring directory {} (not a partition)", dir);
            continue;
        }
        auto log = open_log(dir, clean_at_open_, *tp);
        if (!log) return failure{log_error{log.error().code, dir + ": " + log.error().message}};
        logs_[*tp] = std::move(*log);
    }
    return ok_v;
}

log_result<std::shared_ptr<partition_log>> log_manager::get_or_create(const topic_partition& tp,
                                                                      const log_config& config) {
    if (!is_valid_topic_name(tp.topic) || tp.partition < 0)
        return failure{log_error{log_errc::invalid_argument, "invalid topic partition " + tp.topic + "-" +
                                                                  std::to_string(tp.partition)}};
    std::lock_guard lk(mu_);
    if (closed_) return failure{log_error{log_errc::closed, "log manager closed"}};
    if (auto it = logs_.find(tp); it != logs_.end()) return std::shared_ptr<partition_log>(it->second);
    auto& fs = *opt_.fs;
    auto dir = io::join_path(opt_.data_dir, partition_dir_name(tp));
    if (auto st = fs.mkdir(dir); !st) return failure{from_io(st.error())};
    auto meta = format_partition_meta(tp);
    if (auto st = io::write_file_atomically(fs, io::join_path(dir, k_partition_meta_file), as_bytes(meta)); !st)
        return failure{from_io(st.error())};
    if (auto st = fs.sync_dir(opt_.data_dir); !st) return failure{from_io(st.error())};
    auto log = open_log(dir, false, tp);
    if (!log) return failure{log.error()};
    (*log)->set_config(config);
    logs_[tp] = *log;
    return std::shared_ptr<partition_log>(std::move(*log));
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

log_status log_manager::remove(const topic_partition& tp) {
    std::lock_guard lk(mu_);
    auto it = logs_.find(tp);
    if (it == logs_.end()) return ok_v;
    auto log = it->second;
    logs_.erase(it);
    (void)log->close();  // the data is being deleted; a flush error does not matter
    auto& fs = *opt_.fs;
    auto dir = log->dir();
    auto doomed = io::join_path(opt_.data_dir, std::string(k_deleting_prefix) + std::to_string(++delete_seq_) + "-" +
                                                   std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    // Rename first: a crash mid-deletion leaves a "~deleting-" directory, not a
    // half-deleted partition that would be opened again.
    if (auto st = fs.rename(dir, doomed); !st) return failure{from_io(st.error())};
    if (auto st = fs.sync_dir(opt_.data_dir); !st) return failure{from_io(st.error())};
    if (auto st = io::remove_all(fs, doomed); !st) return failure{from_io(st.error())};
    return ok_v;
}

log_status log_manager::close() {
    std::map<topic_partition, std::shared_ptr<local_log>> logs;
    {
        std::lock_guard lk(mu_);
        if (closed_) return ok_v;
        closed_ = true;
        logs.swap(logs_);
    }
    log_status result = ok_v;
    for (auto& [tp, log] : logs) {
        if (auto st = log->close(); !st) {
            spdlog::error("closing {}: {}", log->dir(), st.error().message);
            result = st;
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
