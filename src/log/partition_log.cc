#include "log/partition_log.h"

namespace ketch::log {

log_result<bytes> read_bytes(const read_result& r) {
    bytes out(r.total_bytes);
    size_t at = 0;
    for (const auto& s : r.slices) {
        if (at + s.length > out.size()) return failure{log_error{log_errc::invalid_argument, "slices exceed total"}};
        auto st = s.file->read_exact(s.position, std::span<uint8_t>(out.data() + at, s.length));
        if (!st) return failure{from_io(st.error())};
        at += s.length;
    }
    out.resize(at);
    return out;
}

}  // namespace ketch::log
