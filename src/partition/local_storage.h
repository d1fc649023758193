// The local log as the partition service's storage: each partition is a
// log::partition_log of the log_manager (segment files in the data
// directory); wait_durable is the log's group commit (sync_async).
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "log/log_manager.h"
#include "partition/storage.h"

namespace ketch::partition {

class local_storage final : public storage {
public:
    explicit local_storage(std::shared_ptr<log::partition_log> log) : log_(std::move(log)) {}

    log::log_result<log::append_result> append(byte_view batch, const log::append_options& opts) override {
        return log_->append(batch, opts);
    }
    log::log_result<log::append_result> append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                                          int32_t coordinator_epoch, int64_t now_ms) override {
        return log_->append_txn_marker(producer_id, producer_epoch, commit, coordinator_epoch, now_ms);
    }
    void wait_durable(int64_t end_offset, std::function<void(log::log_status)> done) override {
        log_->sync_async(end_offset, std::move(done));
    }
    log::log_result<log::read_result> read(int64_t offset, uint64_t max_bytes, const log::read_options& opts) override {
        return log_->read(offset, max_bytes, opts);
    }
    int64_t log_start_offset() const override { return log_->log_start_offset(); }
    int64_t local_log_start_offset() const override { return log_->local_log_start_offset(); }
    int64_t log_end_offset() const override { return log_->log_end_offset(); }
    int64_t high_watermark() const override { return log_->high_watermark(); }
    int64_t last_stable_offset() const override { return log_->last_stable_offset(); }
    uint64_t size_bytes() const override { return log_->size_bytes(); }
    log::log_result<std::optional<log::timestamp_offset>> offset_for_timestamp(int64_t ts) override {
        return log_->offset_for_timestamp(ts);
    }
    log::log_result<std::optional<log::timestamp_offset>> max_timestamp() override { return log_->max_timestamp(); }
    log::log_result<int64_t> delete_records_before(int64_t offset) override {
        return log_->delete_records_before(offset);
    }
    log::log_result<log::retention_result> apply_retention(int64_t now_ms, int64_t retention_ms,
                                                           int64_t retention_bytes) override {
        return log_->apply_retention(now_ms, retention_ms, retention_bytes);
    }
    log::log_result<log::clean_result> clean(const log::compaction_config& c, int64_t now_ms) override {
        return log_->clean(c, now_ms);
    }
    std::vector<log::producer_entry> producers() const override { return log_->producers(); }
    bool has_ongoing_txn(int64_t producer_id, int16_t producer_epoch) const override {
        return log_->has_ongoing_txn(producer_id, producer_epoch);
    }
    size_t expire_producers(int64_t now_ms, int64_t expiration_ms) override {
        return log_->expire_producers(now_ms, expiration_ms);
    }
    void set_config(const log::log_config& c) override { log_->set_config(c); }

    const std::shared_ptr<log::partition_log>& log() const { return log_; }

private:
    std::shared_ptr<log::partition_log> log_;
};

// The log_manager's partitions as storage. The wrappers are made once per
// partition and kept (mu_), so a lookup costs what log_manager::get did.
class local_engine final : public storage_engine {
public:
    explicit local_engine(log::log_manager& logs) : logs_(logs) {}

    std::shared_ptr<storage> get(const topic_partition& tp) override;
    log::log_result<std::shared_ptr<storage>> get_or_create(const topic_partition& tp,
                                                            const log::log_config& config) override;
    // A partition with no log reads as the empty log (empty_storage): nothing
    // is created until something is written.
    log::log_result<std::shared_ptr<storage>> get_for_read(const topic_partition& tp,
                                                           const log::log_config& config) override;
    log::log_status remove(const topic_partition& tp) override;
    log::log_status remove_all(const std::vector<topic_partition>& tps) override;
    std::vector<topic_partition> partitions() const override { return logs_.partitions(); }

private:
    std::shared_ptr<storage> wrap(const topic_partition& tp, std::shared_ptr<log::partition_log> log);

    log::log_manager& logs_;
    std::mutex mu_;
    std::map<topic_partition, std::shared_ptr<local_storage>, std::less<>> wrapped_;  // mu_
};

}  // namespace ketch::partition
