#include "log/batch_reader.h"

#include <algorithm>

#include "base/crc32c.h"

namespace ketch::log {

using record::k_batch_header_size;
using record::k_log_overhead;

batch_reader::batch_reader(const io::file& f, uint64_t start, uint64_t end, size_t chunk_bytes)
    : f_(f), pos_(start), end_(end), buf_(std::max(chunk_bytes, k_batch_header_size)) {}

log_result<std::optional<batch_location>> batch_reader::next() {
    if (pos_ >= end_) return std::optional<batch_location>{};
    auto corrupt = [&](const char* why) {
        return failure{log_error{log_errc::corrupt,
                                 std::string(why) + " at position " + std::to_string(pos_) + " of " + f_.path()}};
    };
    if (end_ - pos_ < k_batch_header_size) return corrupt("truncated batch header");
    if (pos_ < buf_pos_ || pos_ + k_batch_header_size > buf_pos_ + buf_len_) {
        size_t want = size_t(std::min<uint64_t>(buf_.size(), end_ - pos_));
        auto n = f_.pread(pos_, std::span<uint8_t>(buf_.data(), want));
        if (!n) return failure{from_io(n.error())};
        buf_pos_ = pos_;
        buf_len_ = *n;
        if (buf_len_ < k_batch_header_size) return corrupt("file shorter than expected");
    }
    auto h = record::parse_batch_header(byte_view(buf_.data() + (pos_ - buf_pos_), k_batch_header_size));
    if (h->batch_length < int32_t(k_batch_header_size - k_log_overhead)) return corrupt("batch length too small");
    if (h->magic != 2) return corrupt("batch magic is not 2");
    if (h->last_offset_delta < 0) return corrupt("negative last offset delta");
    if (h->total_size() > end_ - pos_) return corrupt("batch extends past the end");
    batch_location loc{pos_, *h};
    pos_ += loc.size();
    return std::optional<batch_location>(loc);
}

byte_view batch_reader::chunk_bytes_of(const batch_location& b) const {
    if (b.position < buf_pos_ || b.end() > buf_pos_ + buf_len_) return {};
    return byte_view(buf_.data() + (b.position - buf_pos_), size_t(b.size()));
}

log_status verify_batch_crc(byte_view whole, const batch_location& b, const std::string& path) {
    if (crc32c_extend(0, whole.subspan(record::k_attributes_offset)) != b.header.crc)
        return failure{
            log_error{log_errc::corrupt, "CRC mismatch at position " + std::to_string(b.position) + " of " + path}};
    return ok_v;
}

log_status verify_batch_crc(const io::file& f, const batch_location& b, bytes& scratch) {
    if (scratch.size() < 64 * 1024) scratch.resize(64 * 1024);
    uint64_t pos = b.position + record::k_attributes_offset;
    uint32_t crc = 0;
    while (pos < b.end()) {
        size_t n = size_t(std::min<uint64_t>(scratch.size(), b.end() - pos));
        auto st = f.read_exact(pos, std::span<uint8_t>(scratch.data(), n));
        if (!st) {
            if (st.error().kind == io::io_errc::end_of_file)
                return failure{log_error{log_errc::corrupt, "short batch"}};
            return failure{from_io(st.error())};
        }
        crc = crc32c_extend(crc, byte_view(scratch.data(), n));
        pos += n;
    }
    if (crc != b.header.crc)
        return failure{
            log_error{log_errc::corrupt, "CRC mismatch at position " + std::to_string(b.position) + " of " + f.path()}};
    return ok_v;
}

log_result<bytes> read_batch(const io::file& f, const batch_location& b) {
    bytes out(b.size());
    auto st = f.read_exact(b.position, out);
    if (!st) return failure{from_io(st.error())};
    return out;
}

}  // namespace ketch::log
