#include "log/log_error.h"

namespace ketch::log {

const char* to_string(log_errc c) {
    switch (c) {
        case log_errc::offset_out_of_range: return "offset out of range";
        case log_errc::invalid_batch: return "invalid batch";
        case log_errc::batch_too_large: return "batch too large";
        case log_errc::no_space: return "no space left on device";
        case log_errc::io: return "i/o error";
        case log_errc::storage_failed: return "storage failed";
        case log_errc::corrupt: return "corrupt log data";
        case log_errc::closed: return "log closed";
        case log_errc::invalid_argument: return "invalid argument";
        case log_errc::out_of_order_sequence: return "out of order sequence number";
        case log_errc::invalid_producer_epoch: return "invalid producer epoch";
        case log_errc::invalid_txn_state: return "invalid transaction state";
        case log_errc::coordinator_fenced: return "transaction coordinator fenced";
    }
    return "unknown";
}

log_error from_io(const io::io_error& e) {
    return log_error{e.kind == io::io_errc::no_space ? log_errc::no_space : log_errc::io, e.message()};
}

}  // namespace ketch::log
