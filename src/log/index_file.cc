#include "log/index_file.h"

#include <spdlog/spdlog.h>

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

io::io_result<std::optional<index_file_summary>> read_index_file_summary(io::file_system& fs, const std::string& path,
                                                                         uint32_t magic, uint16_t entry_size,
                                                                         int64_t base_offset) {
    using summary = std::optional<index_file_summary>;
    auto f = fs.open(path, io::open_mode::read_only);
    if (!f) return failure{f.error()};
    auto size = (*f)->size();
    if (!size) return failure{size.error()};
    if (*size < k_index_header_size + k_index_trailer_size) return summary{};
    const uint64_t body = *size - k_index_header_size - k_index_trailer_size;
    if (body % entry_size != 0) return summary{};
    // A small file (a segment of a few MiB) in one read, else its two ends:
    // the header, and the last entry with the trailer.
    const size_t end_size = k_index_trailer_size + (body > 0 ? entry_size : 0);
    bytes image(*size <= 4096 ? *size : k_index_header_size + end_size);
    const size_t split = *size <= 4096 ? image.size() : k_index_header_size;
    for (auto [at, out] : {std::pair{uint64_t(0), std::span<uint8_t>(image).first(split)},
                           std::pair{*size - end_size, std::span<uint8_t>(image).subspan(split)}}) {
        if (out.empty()) continue;
        auto got = (*f)->read_exact(at, out);
        if (!got && got.error().kind == io::io_errc::end_of_file) return summary{};  // shrunk meanwhile
        if (!got) return failure{got.error()};
    }
    const uint8_t* head = image.data();
    const uint8_t* end = image.data() + image.size() - end_size;
    if (load_be<uint32_t>(head) != magic || load_be<uint16_t>(head + 4) != k_index_version ||
        load_be<uint16_t>(head + 6) != entry_size || load_be<int64_t>(head + 8) != base_offset)
        return summary{};
    const uint8_t* t = end + end_size - k_index_trailer_size;
    if (load_be<uint32_t>(t) != body / entry_size) return summary{};
    index_file_summary s;
    s.count = body / entry_size;
    s.crc = load_be<uint32_t>(t + 4);
    s.last.assign(end, t);
    return summary{std::move(s)};
}

void drop_bad_index_file(io::file_system& fs, const std::string& path) {
    auto removed = fs.remove(path);
    spdlog::warn(
        "index file {} does not hold what it held at start-up ({}): until the segment is written again or the "
        "next start rebuilds the file, a search below its entries scans the segment from its start",
        path, removed ? "removed" : "not removed: " + removed.error().message());
}

bytes index_file_blocks::read(size_t first, size_t n) const {
    if (first + n > count) return {};
    auto f = fs->open(path, io::open_mode::read_only);
    if (!f) return {};
    bytes out(n * entry_size);
    if (!(*f)->read_exact(k_index_header_size + first * entry_size, out)) return {};
    return out;
}

}  // namespace ketch::log
