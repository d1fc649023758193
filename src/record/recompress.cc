#include "record/recompress.h"

#include "record/batch_builder.h"
#include "record/record_reader.h"

namespace ketch::record {

result<bytes, codec_error> recompress_batch(byte_view batch, compression target, int level) {
    auto rr = record_reader::open(batch);
    if (!rr) return failure{codec_error{codec_errc::corrupt, rr.error().message}};
    const batch_header& h = rr->header();
    batch_options o;
    o.codec = target;
    o.compression_level = level;
    o.ts_type = h.ts_type();
    o.log_append_time = h.ts_type() == timestamp_type::log_append_time ? h.max_timestamp : k_no_timestamp;
    o.producer_id = h.producer_id;
    o.producer_epoch = h.producer_epoch;
    o.base_sequence = h.base_sequence;
    o.transactional = h.is_transactional();
    o.partition_leader_epoch = h.partition_leader_epoch;
    batch_builder b(o);
    record_view rv;
    for (;;) {
        auto n = rr->next(rv);
        if (!n) return failure{codec_error{codec_errc::corrupt, n.error().message}};
        if (!*n) break;
        record_data d;
        if (rv.key) d.key = bytes(rv.key->begin(), rv.key->end());
        if (rv.value) d.value = bytes(rv.value->begin(), rv.value->end());
        for (const auto& hd : rv.headers) {
            record_header_data x;
            x.key.assign(reinterpret_cast<const char*>(hd.key.data()), hd.key.size());
            if (hd.value) x.value = bytes(hd.value->begin(), hd.value->end());
            d.headers.push_back(std::move(x));
        }
        d.timestamp = record_timestamp(h, rv);
        b.add(std::move(d));
    }
    return b.build();
}

}  // namespace ketch::record
