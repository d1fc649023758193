#include "partition/errors.h"

namespace ketch::partition {

error_code producer_state_error(log::log_errc c) {
    switch (c) {
        case log::log_errc::out_of_order_sequence: return error_code::out_of_order_sequence_number;
        case log::log_errc::invalid_producer_epoch: return error_code::invalid_producer_epoch;
        case log::log_errc::invalid_txn_state: return error_code::invalid_txn_state;
        case log::log_errc::coordinator_fenced: return error_code::transaction_coordinator_fenced;
        default: return error_code::none;
    }
}

error_code append_error(log::log_errc c) {
    error_code e = producer_state_error(c);
    return e == error_code::none ? error_code::kafka_storage_error : e;
}

error_code open_error(log::log_errc c) {
    return c == log::log_errc::closed ? error_code::unknown_topic_or_partition : error_code::kafka_storage_error;
}

error_code read_error(log::log_errc c) {
    return c == log::log_errc::offset_out_of_range ? error_code::offset_out_of_range : error_code::kafka_storage_error;
}

}  // namespace ketch::partition
