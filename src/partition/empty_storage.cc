#include "partition/empty_storage.h"

#include <string>

namespace ketch::partition {

namespace {

log::log_error refused() {
    return log::log_error{log::log_errc::closed, "a partition read as empty cannot be written (open it to write)"};
}

log::log_error out_of_range(int64_t offset) {
    return log::log_error{log::log_errc::offset_out_of_range,
                          "offset " + std::to_string(offset) + " is outside [0, 0] (the partition is empty)"};
}

}  // namespace

std::shared_ptr<storage> empty_storage::instance() {
    static const std::shared_ptr<storage> one = std::make_shared<empty_storage>();
    return one;
}

log::log_result<log::append_result> empty_storage::append(byte_view, const log::append_options&) {
    return failure{refused()};
}

log::log_result<log::append_result> empty_storage::append_txn_marker(int64_t, int16_t, bool, int32_t, int64_t) {
    return failure{refused()};
}

void empty_storage::wait_durable(int64_t end_offset, std::function<void(log::log_status)> done) {
    // Everything below offset 0 is durable: there is nothing.
    if (end_offset <= 0) {
        done(ok_v);
        return;
    }
    done(failure{refused()});
}

log::log_result<log::read_result> empty_storage::read(int64_t offset, uint64_t, const log::read_options& opts) {
    if (offset != 0) return failure{out_of_range(offset)};
    log::read_result out;
    if (opts.read_committed) out.aborted.emplace();
    return out;
}

log::log_result<int64_t> empty_storage::delete_records_before(int64_t offset) {
    if (offset != 0) return failure{out_of_range(offset)};
    return int64_t{0};
}

}  // namespace ketch::partition
