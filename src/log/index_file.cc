#include "log/index_file.h"

#include <cstring>

#include "base/crc32c.h"
#include "base/endian.h"
#include "log/log_format.h"

namespace ketch::log {

uint8_t* put_index_file_header(uint8_t* at, uint32_t magic, uint16_t entry_size, int64_t base_offset) {
    store_be<uint32_t>(at, magic);
    store_be<uint16_t>(at + 4, k_index_version);
    store_be<uint16_t>(at + 6, entry_size);
    store_be<int64_t>(at + 8, base_offset);
    return at + k_index_header_size;
}

bytes frame_index_file(uint32_t magic, uint16_t entry_size, int64_t base_offset, byte_view entries) {
    bytes out(k_index_header_size + entries.size() + k_index_trailer_size);
    uint8_t* p = out.data();
    put_index_file_header(p, magic, entry_size, base_offset);
    if (!entries.empty()) std::memcpy(p + k_index_header_size, entries.data(), entries.size());
    uint8_t* t = p + k_index_header_size + entries.size();
    store_be<uint32_t>(t, uint32_t(entries.size() / entry_size));
    store_be<uint32_t>(t + 4, crc32c(byte_view(out.data(), k_index_header_size + entries.size())));
    return out;
}

std::optional<byte_view> unframe_index_file(byte_view file, uint32_t magic, uint16_t entry_size, int64_t base_offset) {
    if (file.size() < k_index_header_size + k_index_trailer_size) return std::nullopt;
    size_t body = file.size() - k_index_header_size - k_index_trailer_size;
    if (body % entry_size != 0) return std::nullopt;
    const uint8_t* p = file.data();
    if (load_be<uint32_t>(p) != magic || load_be<uint16_t>(p + 4) != k_index_version ||
        load_be<uint16_t>(p + 6) != entry_size || load_be<int64_t>(p + 8) != base_offset)
        return std::nullopt;
    const uint8_t* t = p + k_index_header_size + body;
    if (load_be<uint32_t>(t) != body / entry_size) return std::nullopt;
    if (load_be<uint32_t>(t + 4) != crc32c(file.first(k_index_header_size + body))) return std::nullopt;
    return file.subspan(k_index_header_size, body);
}

bytes index_file_blocks::read(size_t first, size_t n) const {
    if (first + n > count) return {};
    auto f = fs->open(path, io::open_mode::read_only);
    if (!f) return {};
    bytes out(n * entry_size);
    uint64_t at = k_index_header_size + first * entry_size;
    for (size_t got = 0; got < out.size();) {
        auto r = (*f)->pread(at + got, std::span<uint8_t>(out.data() + got, out.size() - got));
        if (!r || *r == 0) return {};
        got += *r;
    }
    return out;
}

}  // namespace ketch::log
