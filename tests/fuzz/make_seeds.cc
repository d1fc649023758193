// Writes the seed corpora the fuzz targets start from (scripts/fuzz.sh runs
// it into the build directory; nothing here is committed):
//
//   make_seeds <request_decode_dir> <batch_validate_dir>
//
// request_decode: for every API and every version Kafka 4.3.1 defines, a
//   request frame (header + pseudo-random sample body, as kgen's round-trip
//   test fills it) and a response frame (key with the top bit set, see
//   fuzz_request_decode.cc); plus Produce requests carrying real batches.
// batch_validate: valid v2 batches, one per codec and producer mode, each
//   prefixed by the harness's control byte (0: no fix-ups).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/endian.h"
#include "protocol/messages/all_json.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_visit.h"
#include "protocol/messages/request_header.h"
#include "protocol/messages/response_header.h"
#include "record/batch_builder.h"

namespace {

using namespace ketch;
using namespace ketch::kafka;
namespace fs = std::filesystem;

void write_file(const fs::path& p, const bytes& b) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

template <class Body>
bytes request_frame(const api_info& api, int16_t version, const Body& body) {
    writer w;
    request_header h;
    h.request_api_key = api.key;
    h.request_api_version = version;
    h.correlation_id = 7;
    h.client_id = "fuzz-seed";
    h.encode(w, api.request_header_version(version));
    body.encode(w, version);
    return w.take_bytes();
}

// The response direction of fuzz_request_decode: key with the top bit set and
// version select the message, then response header and body.
template <class Body>
bytes response_frame(const api_info& api, int16_t version, const Body& body) {
    writer w;
    w.i16(int16_t(uint16_t(api.key) | 0x8000));
    w.i16(version);
    response_header h;
    h.correlation_id = 7;
    h.encode(w, api.response_header_version(version));
    body.encode(w, version);
    return w.take_bytes();
}

struct write_samples {
    const api_info& api;
    const fs::path& dir;
    int& count;

    template <class Req, class Resp>
    void operator()() {
        for (int16_t v = Req::min_version; v <= Req::max_version; ++v) {
            sample_rng rng(uint64_t(api.key) * 1000 + uint64_t(v));
            Req req;
            fill_sample(req, v, rng);
            Resp resp;
            fill_sample(resp, v, rng);
            std::string stem = std::string(api.name) + "-v" + std::to_string(v);
            write_file(dir / (stem + "-request"), request_frame(api, v, req));
            write_file(dir / (stem + "-response"), response_frame(api, v, resp));
            count += 2;
        }
    }
};

std::vector<std::pair<std::string, bytes>> sample_batches() {
    using namespace ketch::record;
    std::vector<std::pair<std::string, bytes>> out;
    const char* names[] = {"none", "gzip", "snappy", "lz4", "zstd"};
    for (int c = 0; c <= 4; ++c) {
        for (int mode = 0; mode < 3; ++mode) {  // plain, idempotent, transactional
            batch_options o;
            o.codec = compression(c);
            if (mode > 0) {
                o.producer_id = 4242;
                o.producer_epoch = 3;
                o.base_sequence = 10;
                o.transactional = mode == 2;
            }
            batch_builder b(o);
            const int64_t now = 1'700'000'000'000;
            b.add({bytes{'k', '1'}, bytes{'v', 'a', 'l', 'u', 'e'}, {}, now});
            b.add({std::nullopt, bytes(40, 'x'), {{"h", bytes{'1'}}, {"n", std::nullopt}}, now + 5});
            b.add({bytes{'k', '3'}, std::nullopt, {}, now - 5});
            auto built = b.build();
            if (!built.ok()) throw std::runtime_error("batch_builder failed");
            out.emplace_back(std::string(names[c]) + "-mode" + std::to_string(mode), std::move(built.value()));
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <request_decode_dir> <batch_validate_dir>\n", argv[0]);
        return 2;
    }
    const fs::path req_dir = argv[1], batch_dir = argv[2];
    fs::create_directories(req_dir);
    fs::create_directories(batch_dir);

    int count = 0;
    for (const api_info& api : all_apis()) visit_api(api.key, write_samples{api, req_dir, count});

    const auto batches = sample_batches();
    const api_info& produce = *find_api(int16_t(api_key::produce));
    for (const auto& [name, batch] : batches) {
        bytes seed{0x00};
        seed.insert(seed.end(), batch.begin(), batch.end());
        write_file(batch_dir / name, seed);
        for (int16_t v : {int16_t(3), int16_t(9), produce.max_version}) {
            produce_request req;
            req.acks = -1;
            req.timeout_ms = 30000;
            auto& t = req.topic_data.emplace_back();
            t.name = "orders";
            t.partition_data.push_back({0, records(shared_bytes(batch)), {}});
            write_file(req_dir / ("Produce-v" + std::to_string(v) + "-batch-" + name), request_frame(produce, v, req));
            ++count;
        }
    }
    std::printf("make_seeds: %d request/response frames, %zu batches\n", count, batches.size());
    return 0;
}
