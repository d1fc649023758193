// Batches of idempotent / transactional producers for the producer-state tests.
#pragma once

#include "record/batch_builder.h"

namespace ketch::log::testing {

inline bytes producer_batch_bytes(int64_t pid, int16_t epoch, int32_t seq, int count = 1, bool transactional = false,
                                  int64_t ts = 1'700'000'000'000) {
    record::batch_options o;
    o.producer_id = pid;
    o.producer_epoch = epoch;
    o.base_sequence = seq;
    o.transactional = transactional;
    record::batch_builder b(o);
    for (int i = 0; i < count; ++i) b.add({bytes{uint8_t('k')}, bytes{uint8_t('0' + i % 10)}, {}, ts + i});
    return std::move(b.build()).value();
}

inline record::batch_header header_of(const bytes& b, int64_t base_offset = 0) {
    auto h = *record::parse_batch_header(b);
    h.base_offset = base_offset;
    return h;
}

}  // namespace ketch::log::testing
