#include "record/record_reader.h"

#include <string>

#include "base/varint.h"

namespace ketch::record {
namespace {

// A bounds-checked cursor over one record body.
class cursor {
public:
    explicit cursor(byte_view b) : b_(b) {}
    size_t pos() const { return pos_; }
    size_t remaining() const { return b_.size() - pos_; }

    bool i8(int8_t& v) {
        if (remaining() < 1) return false;
        v = int8_t(b_[pos_++]);
        return true;
    }
    bool varint(int32_t& v) { return take(decode_varint(b_.subspan(pos_)), v); }
    bool varlong(int64_t& v) { return take(decode_varlong(b_.subspan(pos_)), v); }
    // A length-prefixed byte string; a negative length is null.
    bool nullable(std::optional<byte_view>& out, int32_t& len) {
        if (!varint(len)) return false;
        if (len < 0) {
            out.reset();
            return true;
        }
        if (size_t(len) > remaining()) return false;
        out = b_.subspan(pos_, size_t(len));
        pos_ += size_t(len);
        return true;
    }

private:
    // A decoded varint's value, the cursor moved past it.
    template <class Decoded, class T>
    bool take(const Decoded& d, T& v) {
        if (!d) return false;
        v = d->value;
        pos_ += d->size;
        return true;
    }

    byte_view b_;
    size_t pos_ = 0;
};

}  // namespace

result<record_reader, read_error> record_reader::open(byte_view batch, size_t max_inflated) {
    auto h = parse_batch_header(batch);
    if (!h) return failure{read_error{read_errc::invalid_record, "batch shorter than its 61-byte header", {}}};
    if (h->magic != k_current_magic)
        return failure{read_error{read_errc::invalid_record, "magic " + std::to_string(h->magic) + " is not 2", {}}};
    if (h->batch_length >= 0 && h->total_size() < batch.size()) batch = batch.first(h->total_size());
    if (batch.size() < k_batch_header_size)
        return failure{read_error{read_errc::invalid_record, "batch_length is shorter than the 61-byte header", {}}};

    record_reader r;
    r.header_ = *h;
    byte_view section = batch.subspan(k_batch_header_size);
    int codec = h->attributes & k_attr_codec_mask;
    if (codec > int(compression::zstd)) {
        codec_error e{codec_errc::unsupported, "unknown compression type id " + std::to_string(codec)};
        return failure{read_error{read_errc::codec, e.message, e}};
    }
    if (h->codec() == compression::none) {
        r.records_ = section;
    } else {
        inflate_result x = decompress(h->codec(), section, max_inflated);
        r.owned_ = std::move(x.data);
        r.records_ = byte_view(r.owned_);
        r.codec_error_ = std::move(x.error);
    }
    return r;
}

result<bool, read_error> record_reader::fail(std::string message) {
    return failure{read_error{read_errc::invalid_record, std::move(message), {}}};
}

result<bool, read_error> record_reader::next(record_view& out) {
    const int32_t count = header_.records_count;
    if (count < 0) return fail("Found invalid record count " + std::to_string(count) + " in magic v2 batch");
    if (read_ >= count) return false;

    // Running out of bytes means the stream ended early, unless decompression
    // stopped first: then the decompression failure is what the reader meets.
    auto out_of_bytes = [&](std::string message) -> result<bool, read_error> {
        if (codec_error_) return failure{read_error{read_errc::codec, codec_error_->message, codec_error_}};
        return fail(std::move(message));
    };

    byte_view rest = records_.subspan(pos_);
    auto len = decode_varint(rest);
    if (!len) {
        if (rest.size() < k_max_varint_size)
            return out_of_bytes("Incorrect declared batch size, premature EOF reached");
        return fail("Found invalid record structure: malformed record length");
    }
    if (len->value < 0) return fail("Invalid record size: " + std::to_string(len->value));
    if (size_t(len->value) > rest.size() - len->size)
        return out_of_bytes("Invalid record size: expected " + std::to_string(len->value) +
                            " bytes in record payload, but instead the buffer has only " +
                            std::to_string(rest.size() - len->size) + " remaining bytes.");
    auto parsed = parse(rest.subspan(len->size, size_t(len->value)), out);
    if (!parsed) return parsed;
    out.size_in_bytes = len->size + size_t(len->value);
    pos_ += out.size_in_bytes;
    ++read_;
    if (read_ == count) {
        if (pos_ != records_.size()) return fail("Incorrect declared batch size, records still remaining in file");
        if (codec_error_) return out_of_bytes("");
    }
    return true;
}

result<bool, read_error> record_reader::parse(byte_view body, record_view& out) {
    const std::string structure = "Found invalid record structure";
    cursor c(body);
    out.headers.clear();
    if (!c.i8(out.attributes) || !c.varlong(out.timestamp_delta) || !c.varint(out.offset_delta) ||
        !c.nullable(out.key, out.key_length) || !c.nullable(out.value, out.value_length))
        return fail(structure);
    int32_t n = 0;
    if (!c.varint(n)) return fail(structure);
    if (n < 0) return fail("Found invalid number of record headers " + std::to_string(n));
    if (size_t(n) > c.remaining())
        return fail("Found invalid number of record headers. " + std::to_string(n) +
                    " is larger than the remaining size of the buffer");
    out.headers.reserve(size_t(n));
    for (int32_t i = 0; i < n; ++i) {
        std::optional<byte_view> key, value;
        int32_t klen = 0, vlen = 0;
        if (!c.nullable(key, klen)) return fail(structure);
        if (klen < 0) return fail("Invalid negative header key size " + std::to_string(klen));
        if (!c.nullable(value, vlen)) return fail(structure);
        out.headers.push_back({*key, value});
    }
    if (c.pos() != body.size())
        return fail("Invalid record size: expected to read " + std::to_string(body.size()) +
                    " bytes in record payload, but instead read " + std::to_string(c.pos()));
    return true;
}

int64_t record_timestamp(const batch_header& h, const record_view& r) {
    if (h.ts_type() == timestamp_type::log_append_time) return h.max_timestamp;
    return int64_t(uint64_t(h.base_timestamp) + uint64_t(r.timestamp_delta));
}

}  // namespace ketch::record
