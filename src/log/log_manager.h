// log_manager: the partition logs of one data directory.
//
//   <data>/<topic>-<partition>/   one local_log each (partition_dir.h)
//   <data>/clean-shutdown         present only between a clean close and the
//                                 next open: lets open trust index files
//   <data>/~deleting-*            partitions being deleted (removed at open)
//
// It owns the flusher thread shared by all its logs (group commit and the
// periodic flush). Thread-safe: mu_ guards the map of open logs and of the
// partitions being created; it is held while a partition is removed, never
// while one is created (each creation runs on its caller's thread, alone for
// its partition: a second caller waits for the first one's log), nor during
// an append or a sync, which go to the log directly.
//
// Creating a partition (mkdir, its `partition` file, an empty segment) syncs
// nothing: the partition file and the data directory's entry are synced by
// the log's first sync pass (local_log::options::on_first_sync), before any of
// its offsets is reported durable. A partition created and never written may
// not survive a machine crash; nothing of it was acknowledged.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "io/file_system.h"
#include "io/pooling_file_system.h"
#include "log/flusher.h"
#include "log/local_log.h"
#include "log/partition_dir.h"

namespace ketch::log {

class log_manager {
public:
    struct options {
        std::shared_ptr<io::file_system> fs;
        std::string data_dir;
        // Config for the logs found at open; the owner then applies each
        // topic's own with partition_log::set_config.
        log_config default_config;
        std::function<int64_t()> clock_ms;          // wall clock; default system clock
        record_timestamp_reader record_timestamps;  // empty: decode_record_timestamps
        log::flusher::options flusher_options;
        // Threads that open (and recover) the logs at start and close them
        // at the end (Kafka's num.recovery.threads.per.data.dir): with
        // thousands of partitions both are bound by syscalls and syncs.
        int open_threads = 8;
        // Segment files (<base>.log) held open at most: beyond it the least
        // recently used is closed and reopened on its next use
        // (io::pooling_file_system). 0: every segment stays open.
        size_t max_open_segment_files = 0;
    };

    // Opens (and recovers) every partition under data_dir; starts the flusher.
    static log_result<std::unique_ptr<log_manager>> open(options opt);
    ~log_manager();
    log_manager(const log_manager&) = delete;
    log_manager& operator=(const log_manager&) = delete;

    // The partition's log, created with `config` if it does not exist (an
    // existing log keeps its config). invalid_argument for a bad topic name.
    log_result<std::shared_ptr<partition_log>> get_or_create(const topic_partition& tp, const log_config& config);
    // nullptr when the partition has no log here.
    std::shared_ptr<partition_log> get(const topic_partition& tp) const;
    // Closes the log and deletes its directory; ok if it does not exist.
    log_status remove(const topic_partition& tp);
    // The same for many partitions (a deleted topic's): the logs are discarded
    // unsynced (their data is going) and their renames share one sync of the
    // data directory, so n partitions cost one fsync, not 2n.
    log_status remove(const std::vector<topic_partition>& tps);
    std::vector<topic_partition> partitions() const;

    // Closes every log (flush, index files, checkpoints), stops the flusher and,
    // if all went well, marks the directory cleanly shut down. Idempotent.
    log_status close();

    log::flusher& flusher() { return *flusher_; }
    // Called after a transaction marker was appended to a partition (from the
    // appending thread, no lock held). Set once, before the logs are used.
    void set_marker_listener(std::function<void(const topic_partition&)> fn) { marker_hook_->fn = std::move(fn); }
    bool opened_after_clean_shutdown() const { return clean_at_open_; }

private:
    explicit log_manager(options opt);
    log_status load();
    log_result<std::shared_ptr<local_log>> open_log(const std::string& dir, bool clean, const topic_partition& tp,
                                                    std::function<io::io_status()> on_first_sync = {});
    // Makes the partition's directory and log (no lock held, no sync).
    log_result<std::shared_ptr<local_log>> create_log(const topic_partition& tp, const log_config& config);
    using creation = std::shared_future<log_result<std::shared_ptr<local_log>>>;
    // Waits (mu_ released meanwhile) until no creation of `tp` is in flight.
    void wait_creation(std::unique_lock<std::mutex>& lk, const topic_partition& tp);
    struct marker_hook {
        std::function<void(const topic_partition&)> fn;
    };
    std::shared_ptr<marker_hook> marker_hook_ = std::make_shared<marker_hook>();

    options opt_;
    std::shared_ptr<log::flusher> flusher_;
    bool clean_at_open_ = false;
    mutable std::mutex mu_;
    std::map<topic_partition, std::shared_ptr<local_log>> logs_;  // mu_
    std::map<topic_partition, creation> creating_;                // mu_: in flight, no lock held
    bool closed_ = false;                                         // mu_
    uint64_t delete_seq_ = 0;                                     // mu_
};

}  // namespace ketch::log
