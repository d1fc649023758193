// libFuzzer target: one Kafka frame (without its 4-byte size prefix), decoded
// the way broker::dispatcher decodes a request: header, then body.
//
// Input layout: int16 api key, int16 api version, then the rest of the header
// and the body, exactly as on the wire. To spend every input on a real
// message, an out-of-range key is folded onto a defined one (key % number of
// APIs) and an out-of-range version onto 0..max_version. The top bit of the
// key selects the response direction (response header + response body), so
// the codec the clients and tools use is fuzzed too; request frames taken
// from the wire keep that bit clear.
//
// Contract checked (any violation aborts, which libFuzzer reports):
//   - decoding throws nothing but kafka::decode_error, never reads outside
//     the frame (ASan), and has no undefined behaviour (UBSan);
//   - a message that decodes re-encodes without throwing, and that encoding
//     decodes completely and re-encodes to the same bytes (encode . decode
//     is the identity on ketch's own encodings). That decode(encode(m)) == m
//     is pinned by tests/unit/protocol/roundtrip_test.cc.
// Memory stays bounded by libFuzzer's -rss_limit_mb / -malloc_limit_mb.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "base/bytes.h"
#include "base/endian.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_visit.h"
#include "protocol/messages/request_header.h"
#include "protocol/messages/response_header.h"

namespace {

using namespace ketch;
using namespace ketch::kafka;

[[noreturn]] void fail(std::string_view message_name, int16_t version, const char* what) {
    std::fprintf(stderr, "fuzz_request_decode: %.*s v%d: %s\n", int(message_name.size()), message_name.data(),
                 int(version), what);
    std::abort();
}

// Encodes m at `version`; any exception is a codec defect (m was decoded at
// that version, so every field it holds is representable there).
template <class M>
bytes encode_or_die(const M& m, int16_t version) {
    try {
        writer w;
        m.encode(w, version);
        return w.take_bytes();
    } catch (const std::exception& e) {
        fail(M::message_name, version, e.what());
    }
}

// Decodes `in` completely at `version` into m; a decode_error or left-over
// bytes here (input produced by our own encoder) is a codec defect.
template <class M>
void redecode_or_die(M& m, const bytes& in, int16_t version) {
    reader r(in.data(), in.size());
    try {
        m.decode(r, version);
    } catch (const decode_error& e) {
        fail(M::message_name, version, (std::string("own encoding does not decode: ") + e.what()).c_str());
    }
    if (r.remaining() != 0) fail(M::message_name, version, "own encoding decodes with bytes left over");
}

// write_tagged_fields orders tagged fields with std::sort, which is not
// stable: an input repeating an unknown tag (Kafka's decoder accepts that)
// may re-encode with the duplicates swapped. Tolerated here as long as the
// encodings are permutations of each other; anything else fails.
bool same_bytes_reordered(bytes a, bytes b) {
    if (a.size() != b.size()) return false;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

// Decodes one M from r. Returns false on decode_error (a rejected input is
// fine); otherwise checks the round-trip contract.
template <class M>
bool decode_and_check(reader& r, int16_t version) {
    M m1;
    try {
        m1.decode(r, version);
    } catch (const decode_error&) {
        return false;
    }
    bytes b1 = encode_or_die(m1, version);
    M m2;
    redecode_or_die(m2, b1, version);
    bytes b2 = encode_or_die(m2, version);
    if (b1 != b2 && !same_bytes_reordered(b1, b2))
        fail(M::message_name, version, "encode(decode(encode(m))) != encode(m)");
    return true;
}

struct frame_decoder {
    const api_info& api;
    int16_t version;
    bool response;
    reader& r;

    template <class Req, class Resp>
    void operator()() {
        if (response) {
            if (decode_and_check<response_header>(r, api.response_header_version(version)))
                decode_and_check<Resp>(r, version);
        } else {
            if (decode_and_check<request_header>(r, api.request_header_version(version)))
                decode_and_check<Req>(r, version);
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 4) return 0;
    const uint16_t raw_key = load_be<uint16_t>(data);
    const uint16_t raw_version = load_be<uint16_t>(data + 2);
    const bool response = (raw_key & 0x8000) != 0;
    const auto apis = all_apis();
    const api_info& api = apis[(raw_key & 0x7fff) % apis.size()];
    const int16_t version =
        raw_version <= uint16_t(api.max_version) ? int16_t(raw_version) : int16_t(raw_version % (api.max_version + 1));

    // The frame as the broker holds it: a shared buffer the reader may alias
    // (records fields point into it). Request header fields are re-read from
    // it, so the key and version written there are the folded ones.
    bytes frame(data, data + size);
    store_be<int16_t>(frame.data(), api.key);
    store_be<int16_t>(frame.data() + 2, version);
    shared_bytes shared(std::move(frame));
    reader r(shared);
    if (response) r.skip(4);  // a response frame has no key/version; they only select the message here

    frame_decoder dec{api, version, response, r};
    if (!visit_api(api.key, dec)) fail(api.name, version, "api table lists a key visit_api does not know");
    return 0;
}
