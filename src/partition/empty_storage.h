// empty_storage: what a read sees of a partition that has no storage yet
// (nothing was ever written to it): an empty log at offset 0, exactly as a
// freshly created local log answers (log start 0, high watermark 0, LSO 0,
// no producers, no timestamps), without creating a directory or a file.
//
// With 10,000 partitions of which most are never written, the first
// ListOffsets or Fetch for all of them used to create every partition's
// directory, partition file and segment (three fsyncs each, under the log
// manager's mutex): tens of seconds after a start. Reads now answer from this
// shared, stateless object; the first write (Produce, a transaction marker,
// DeleteRecords) creates the real log through storage_engine::get_or_create,
// and the next read finds it (docs/design/partition_service.md).
//
// Writes to it are refused (log_errc::closed): callers that write open the
// partition with get_or_create, never with get_for_read.
#pragma once

#include <memory>

#include "partition/storage.h"

namespace ketch::partition {

class empty_storage final : public storage {
public:
    // The one instance (it has no state).
    static std::shared_ptr<storage> instance();

    log::log_result<log::append_result> append(byte_view batch, const log::append_options& opts) override;
    log::log_result<log::append_result> append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                                          int32_t coordinator_epoch, int64_t now_ms) override;
    void wait_durable(int64_t end_offset, std::function<void(log::log_status)> done) override;
    // Offset 0 reads nothing (an empty result, as at the end of any log);
    // any other offset is offset_out_of_range, outside [0, 0].
    log::log_result<log::read_result> read(int64_t offset, uint64_t max_bytes, const log::read_options& opts) override;

    int64_t log_start_offset() const override { return 0; }
    int64_t local_log_start_offset() const override { return 0; }
    int64_t log_end_offset() const override { return 0; }
    int64_t high_watermark() const override { return 0; }
    int64_t last_stable_offset() const override { return 0; }
    uint64_t size_bytes() const override { return 0; }
    log::log_result<std::optional<log::timestamp_offset>> offset_for_timestamp(int64_t) override {
        return std::optional<log::timestamp_offset>{};
    }
    log::log_result<std::optional<log::timestamp_offset>> max_timestamp() override {
        return std::optional<log::timestamp_offset>{};
    }
    // 0 (nothing to delete) is answered 0; past the high watermark is
    // offset_out_of_range, as the local log answers.
    log::log_result<int64_t> delete_records_before(int64_t offset) override;
    log::log_result<log::retention_result> apply_retention(int64_t, int64_t, int64_t) override {
        return log::retention_result{};
    }
    log::log_result<log::clean_result> clean(const log::compaction_config&, int64_t) override {
        return log::clean_result{};
    }
    std::vector<log::producer_entry> producers() const override { return {}; }
    bool has_ongoing_txn(int64_t, int16_t) const override { return false; }
    size_t expire_producers(int64_t, int64_t) override { return 0; }
    void set_config(const log::log_config&) override {}
};

}  // namespace ketch::partition
