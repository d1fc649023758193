// Real clients' request frames (tests/unit/protocol/golden/, captured off the
// wire from kcat, librdkafka, kafkajs, the Java client and franz-go) decode
// with the generated codec and re-encode to the very same bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "base/endian.h"
#include "protocol/messages/all_json.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_visit.h"
#include "protocol/messages/request_header.h"

namespace ketch::kafka {
namespace {

namespace fs = std::filesystem;

bytes read_hex(const fs::path& p) {
    std::ifstream in(p);
    std::string hex;
    in >> hex;
    bytes out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(uint8_t(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

std::map<std::string, bytes> golden_frames() {
    std::map<std::string, bytes> out;
    for (auto& e : fs::directory_iterator(fs::path(KETCH_GOLDEN_DIR)))
        if (e.path().extension() == ".hex") out[e.path().stem().string()] = read_hex(e.path());
    return out;
}

TEST(golden_frames, real_client_requests_round_trip_byte_for_byte) {
    auto frames = golden_frames();
    ASSERT_GE(frames.size(), 20u) << "golden frames missing from " << KETCH_GOLDEN_DIR;
    int checked = 0;
    for (auto& [name, frame] : frames) {
        int16_t key = load_be<int16_t>(frame.data());
        int16_t version = load_be<int16_t>(frame.data() + 2);
        const api_info* api = find_api(key);
        ASSERT_NE(api, nullptr) << name;
        if (version > api->max_version) continue;  // a client's probe above Kafka 4.3.1's range
        reader r(frame.data(), frame.size());
        request_header h;
        h.decode(r, api->request_header_version(version));
        EXPECT_EQ(h.request_api_key, key);
        writer w;
        h.encode(w, api->request_header_version(version));
        visit_api(key, [&]<class Req, class Resp>() {
            Req req;
            req.decode(r, version);
            EXPECT_EQ(r.remaining(), 0u) << name << ": bytes left after the body";
            req.encode(w, version);
        });
        EXPECT_EQ(w.take_bytes(), frame) << name << " does not re-encode to the captured bytes";
        ++checked;
    }
    EXPECT_GE(checked, 20);
}

TEST(golden_frames, produce_frames_carry_the_record_batch_the_client_sent) {
    for (auto& [name, frame] : golden_frames()) {
        if (name.find("_produce_v") == std::string::npos) continue;
        int16_t version = load_be<int16_t>(frame.data() + 2);
        reader r(frame.data(), frame.size());
        request_header h;
        h.decode(r, find_api(0)->request_header_version(version));
        produce_request req;
        req.decode(r, version);
        ASSERT_EQ(req.topic_data.size(), 1u) << name;
        if (version < 13)
            EXPECT_EQ(req.topic_data[0].name, "golden") << name;
        else
            EXPECT_FALSE(req.topic_data[0].topic_id.is_zero()) << name;
        auto& records = req.topic_data[0].partition_data.at(0).records;
        ASSERT_TRUE(records.has_value()) << name;
        auto b = records->flatten();
        ASSERT_GE(b.size(), 61u) << name;
        EXPECT_EQ(b[16], 2) << name << ": record batch magic";
    }
}

}  // namespace
}  // namespace ketch::kafka
