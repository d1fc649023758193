// Helpers for the generated JSON conversion and sample filling (tests and the
// conformance tool). Not used on the broker's hot path.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "base/uuid.h"
#include "protocol/records.h"

namespace ketch::kafka {

std::string base64_encode(byte_view b);
bytes base64_decode(const std::string& s);

inline nlohmann::json json_uuid(const uuid& u) { return u.to_base64(); }
inline nlohmann::json json_bytes(const bytes& b) { return base64_encode(b); }
inline nlohmann::json json_records(const records& r) { return base64_encode(r.flatten()); }
uuid uuid_from_json(const nlohmann::json& j);
inline bytes bytes_from_json(const nlohmann::json& j) { return base64_decode(j.get<std::string>()); }
inline records records_from_json(const nlohmann::json& j) {
    return records(shared_bytes(base64_decode(j.get<std::string>())));
}

// Deterministic pseudo-random values for round-trip tests.
class sample_rng {
public:
    explicit sample_rng(uint64_t seed) : g_(seed) {}
    int8_t i8() { return int8_t(g_()); }
    int16_t i16() { return int16_t(g_()); }
    int32_t i32() { return int32_t(g_()); }
    int64_t i64() { return int64_t(g_()); }
    uint16_t u16() { return uint16_t(g_()); }
    uint32_t u32() { return uint32_t(g_()); }
    double f64() { return double(int32_t(g_())) / 7.0; }
    bool boolean() { return g_() & 1; }
    bool chance(int one_in) { return g_() % uint64_t(one_in) == 0; }
    // 0-2 elements, none below the depth limit (keeps samples small and finite).
    int count() { return depth_ > 4 ? 0 : int(g_() % 3); }
    uuid id() {
        uuid u;
        for (auto& x : u.b) x = uint8_t(g_());
        return u;
    }
    std::string str() {
        std::string s(g_() % 12, 'a');
        for (auto& c : s) c = char('a' + g_() % 26);
        return s;
    }
    bytes blob() {
        bytes b(g_() % 10);
        for (auto& x : b) x = uint8_t(g_());
        return b;
    }
    records recs() { return records(shared_bytes(blob())); }

    int depth_ = 0;

private:
    std::mt19937_64 g_;
};

struct sample_depth {
    explicit sample_depth(sample_rng& r) : r_(r) { ++r_.depth_; }
    ~sample_depth() { --r_.depth_; }
    sample_rng& r_;
};

}  // namespace ketch::kafka
