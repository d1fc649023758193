// Helpers for the log cleaner tests: keyed batches and a reader of what the
// log holds, record by record.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "log/local_log.h"
#include "record/batch_builder.h"
#include "record/record_reader.h"
#include "test_batches.h"

namespace ketch::log::testing {

struct kv {
    std::string key;
    std::optional<std::string> value;  // nullopt: tombstone
};

inline bytes keyed_batch(const std::vector<kv>& recs, int64_t ts, record::batch_options o = {}) {
    record::batch_builder b(std::move(o));
    for (const auto& r : recs) {
        record::record_data d;
        d.key = bytes(r.key.begin(), r.key.end());
        if (r.value) d.value = bytes(r.value->begin(), r.value->end());
        d.timestamp = ts;
        b.add(std::move(d));
    }
    return *b.build();
}

struct seen_record {
    int64_t offset;
    std::string key;
    std::optional<std::string> value;
    friend bool operator==(const seen_record&, const seen_record&) = default;
};

struct log_contents {
    std::vector<seen_record> records;           // data records, offset order
    std::vector<int64_t> control_offsets;       // control records
    std::vector<record::batch_header> batches;  // every batch
};

inline log_contents read_contents(partition_log& log) {
    log_contents out;
    auto failed = for_each_batch(log, log.log_start_offset(), [&](const record::batch_header& h, byte_view whole) {
        EXPECT_TRUE(record::batch_crc_matches(whole)) << "batch at " << h.base_offset;
        out.batches.push_back(h);
        auto rr = record::record_reader::open(whole);
        EXPECT_TRUE(rr.ok());
        record::record_view rv;
        while (true) {
            auto n = rr->next(rv);
            EXPECT_TRUE(n.ok());
            if (!n.ok() || !*n) break;
            int64_t off = h.base_offset + rv.offset_delta;
            if (h.is_control()) {
                out.control_offsets.push_back(off);
                continue;
            }
            seen_record s{off, std::string(rv.key->begin(), rv.key->end()), std::nullopt};
            if (rv.value) s.value = std::string(rv.value->begin(), rv.value->end());
            out.records.push_back(std::move(s));
        }
    });
    EXPECT_TRUE(failed.empty()) << failed;
    return out;
}

// key -> latest value (nullopt: deleted) over the records.
inline std::map<std::string, std::optional<std::string>> latest_values(const std::vector<seen_record>& rs) {
    std::map<std::string, std::optional<std::string>> out;
    for (const auto& r : rs) out[r.key] = r.value;
    return out;
}

// Keys with a live (non-tombstone) latest value.
inline std::map<std::string, std::string> live_values(const std::vector<seen_record>& rs) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : latest_values(rs))
        if (v) out[k] = *v;
    return out;
}

}  // namespace ketch::log::testing
