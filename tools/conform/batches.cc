#include "batches.h"

#include <zlib.h>

#include <stdexcept>

#include "base/endian.h"
#include "protocol/json_base.h"
#include "record/batch_builder.h"
#include "record/record_reader.h"

namespace ketch::conform {
namespace {

std::optional<bytes> payload(const json& j) {
    if (j.is_null()) return std::nullopt;
    if (j.is_string()) {
        auto s = j.get<std::string>();
        return bytes(s.begin(), s.end());
    }
    if (j.is_object() && j.contains("base64")) return kafka::base64_decode(j["base64"].get<std::string>());
    if (j.is_object() && j.contains("repeat")) {
        auto unit = j["repeat"].get<std::string>();
        bytes out;
        for (int64_t i = 0; i < j.at("count").get<int64_t>(); ++i) out.insert(out.end(), unit.begin(), unit.end());
        return out;
    }
    throw std::invalid_argument("bad key/value spec: " + j.dump());
}

// A payload as recordings show it: text when printable ASCII, else base64.
json show_payload(std::optional<byte_view> b) {
    if (!b) return nullptr;
    bool text = true;
    for (auto c : *b)
        if (c < 0x20 || c > 0x7e) text = false;
    if (text) return std::string(b->begin(), b->end());
    return json{{"base64", kafka::base64_encode(*b)}};
}

record::compression codec_named(const std::string& name) {
    for (int c = 0; c <= 4; ++c)
        if (record::compression_name(record::compression(c)) == name) return record::compression(c);
    throw std::invalid_argument("unknown codec '" + name + "'");
}

bytes build_batch(const json& spec) {
    record::batch_options o;
    o.base_offset = spec.value("base_offset", int64_t(0));
    o.partition_leader_epoch = spec.value("partition_leader_epoch", record::k_no_partition_leader_epoch);
    o.codec = codec_named(spec.value("codec", std::string("none")));
    o.producer_id = spec.value("producer_id", record::k_no_producer_id);
    o.producer_epoch = spec.value("producer_epoch", record::k_no_producer_epoch);
    o.base_sequence = spec.value("base_sequence", record::k_no_sequence);
    o.transactional = spec.value("transactional", false);
    if (spec.value("log_append_time", false)) o.ts_type = record::timestamp_type::log_append_time;
    record::batch_builder b(o);
    for (auto& r : spec.at("records")) {
        record::record_data d;
        d.key = payload(r.value("key", json(nullptr)));
        d.value = payload(r.value("value", json(nullptr)));
        d.timestamp = r.value("timestamp", record::k_no_timestamp);
        for (auto& h : r.value("headers", json::array()))
            d.headers.push_back({h.at("key").get<std::string>(), payload(h.value("value", json(nullptr)))});
        b.add(std::move(d));
    }
    auto built = b.build();
    if (!built) throw std::invalid_argument("batch: " + built.error().message);
    bytes out = std::move(built).value();
    if (spec.contains("set")) {
        auto h = *record::parse_batch_header(out);
        for (auto& [k, v] : spec["set"].items()) {
            if (k == "base_offset")
                h.base_offset = v.get<int64_t>();
            else if (k == "batch_length")
                h.batch_length = v.get<int32_t>();
            else if (k == "partition_leader_epoch")
                h.partition_leader_epoch = v.get<int32_t>();
            else if (k == "magic")
                h.magic = v.get<int8_t>();
            else if (k == "attributes")
                h.attributes = v.get<int16_t>();
            else if (k == "last_offset_delta")
                h.last_offset_delta = v.get<int32_t>();
            else if (k == "base_timestamp")
                h.base_timestamp = v.get<int64_t>();
            else if (k == "max_timestamp")
                h.max_timestamp = v.get<int64_t>();
            else if (k == "producer_id")
                h.producer_id = v.get<int64_t>();
            else if (k == "producer_epoch")
                h.producer_epoch = v.get<int16_t>();
            else if (k == "base_sequence")
                h.base_sequence = v.get<int32_t>();
            else if (k == "records_count")
                h.records_count = v.get<int32_t>();
            else
                throw std::invalid_argument("batch: cannot set '" + k + "'");
        }
        record::write_batch_header(h, out.data());
        record::recompute_crc(out.data(), out.size());
    }
    if (spec.value("bad_crc", false)) out[record::k_crc_offset + 3] ^= 0x01;
    return out;
}

// Magic 1 message (Kafka's LegacyRecord): offset, size, crc, magic,
// attributes, timestamp, key, value; the CRC-32 covers magic..end.
void append_message_v1(bytes& out, int64_t offset, const json& m) {
    bytes body;
    body.push_back(1);  // magic
    body.push_back(0);  // attributes
    uint8_t tmp[8];
    store_be<int64_t>(tmp, m.value("timestamp", int64_t(-1)));
    body.insert(body.end(), tmp, tmp + 8);
    for (const char* field : {"key", "value"}) {
        auto p = payload(m.value(field, json(nullptr)));
        store_be<int32_t>(tmp, p ? int32_t(p->size()) : -1);
        body.insert(body.end(), tmp, tmp + 4);
        if (p) body.insert(body.end(), p->begin(), p->end());
    }
    uint32_t crc = uint32_t(::crc32(0, body.data(), uInt(body.size())));
    store_be<int64_t>(tmp, offset);
    out.insert(out.end(), tmp, tmp + 8);
    store_be<int32_t>(tmp, int32_t(body.size() + 4));
    out.insert(out.end(), tmp, tmp + 4);
    store_be<uint32_t>(tmp, crc);
    out.insert(out.end(), tmp, tmp + 4);
    out.insert(out.end(), body.begin(), body.end());
}

std::optional<bytes> expand_one(const json& j) {
    if (!j.is_object() || j.size() != 1) return std::nullopt;
    if (j.contains("$batches")) {
        bytes out;
        for (auto& spec : j["$batches"]) {
            bytes b = build_batch(spec);
            out.insert(out.end(), b.begin(), b.end());
        }
        return out;
    }
    if (j.contains("$message_set_v1")) {
        bytes out;
        int64_t offset = 0;
        for (auto& m : j["$message_set_v1"]) append_message_v1(out, offset++, m);
        return out;
    }
    if (j.contains("$hex")) return from_hex(j["$hex"].get<std::string>());
    if (j.contains("$repeat")) {  // a large bytes field without a large scenario file
        const json& r = j["$repeat"];
        auto unit = r.at("unit").get<std::string>();
        auto count = r.at("count").get<int64_t>();
        if (unit.empty() || count < 0 || int64_t(unit.size()) * count > (int64_t(64) << 20))
            throw std::invalid_argument("bad $repeat: " + r.dump());
        bytes out;
        out.reserve(size_t(int64_t(unit.size()) * count));
        for (int64_t i = 0; i < count; ++i) out.insert(out.end(), unit.begin(), unit.end());
        return out;
    }
    return std::nullopt;
}

json describe_batch(byte_view b) {
    auto h = *record::parse_batch_header(b);
    json j = {{"base_offset", h.base_offset},
              {"batch_length", h.batch_length},
              {"partition_leader_epoch", h.partition_leader_epoch},
              {"magic", h.magic},
              {"crc", h.crc},
              {"crc_valid", record::batch_crc_matches(b)},
              {"attributes", h.attributes},
              {"last_offset_delta", h.last_offset_delta},
              {"base_timestamp", h.base_timestamp},
              {"max_timestamp", h.max_timestamp},
              {"producer_id", h.producer_id},
              {"producer_epoch", h.producer_epoch},
              {"base_sequence", h.base_sequence},
              {"records_count", h.records_count}};
    auto reader = record::record_reader::open(b);
    if (!reader) {
        j["records_error"] = reader.error().message;
        return j;
    }
    json recs = json::array();
    record::record_view v;
    while (true) {
        auto more = reader->next(v);
        if (!more) {
            j["records_error"] = more.error().message;
            break;
        }
        if (!*more) break;
        json hs = json::array();
        for (auto& hd : v.headers)
            hs.push_back({{"key", std::string(hd.key.begin(), hd.key.end())}, {"value", show_payload(hd.value)}});
        recs.push_back({{"offset_delta", v.offset_delta},
                        {"timestamp_delta", v.timestamp_delta},
                        {"key", show_payload(v.key)},
                        {"value", show_payload(v.value)},
                        {"headers", hs}});
    }
    j["records"] = recs;
    return j;
}

}  // namespace

json expand_record_specs(const json& request) {
    if (auto b = expand_one(request)) return kafka::base64_encode(*b);
    if (request.is_object()) {
        json out = json::object();
        for (auto& [k, v] : request.items()) out[k] = expand_record_specs(v);
        return out;
    }
    if (request.is_array()) {
        json out = json::array();
        for (auto& v : request) out.push_back(expand_record_specs(v));
        return out;
    }
    return request;
}

json describe_records(byte_view data) {
    json batches = json::array();
    json out = json::object();
    size_t pos = 0;
    while (pos < data.size()) {
        byte_view rest = data.subspan(pos);
        if (rest.size() < record::k_log_overhead + 5) break;
        int32_t len = load_be<int32_t>(rest.data() + 8);
        size_t total = record::k_log_overhead + size_t(std::max(len, 0));
        if (len < 0 || rest.size() < total) break;
        int8_t magic = int8_t(rest[record::k_magic_offset]);
        byte_view one = rest.first(total);
        if (magic == 2 && total >= record::k_batch_header_size) {
            batches.push_back(describe_batch(one));
        } else {
            batches.push_back({{"magic", magic}, {"base64", kafka::base64_encode(one)}});
        }
        pos += total;
    }
    out["batches"] = batches;
    if (pos < data.size()) out["partial_tail_bytes"] = data.size() - pos;
    return out;
}

json decode_records_fields(const json& response) {
    if (response.is_object()) {
        json out = json::object();
        for (auto& [k, v] : response.items()) {
            if (k == "records" && v.is_string())
                out[k] = describe_records(kafka::base64_decode(v.get<std::string>()));
            else
                out[k] = decode_records_fields(v);
        }
        return out;
    }
    if (response.is_array()) {
        json out = json::array();
        for (auto& v : response) out.push_back(decode_records_fields(v));
        return out;
    }
    return response;
}

}  // namespace ketch::conform
