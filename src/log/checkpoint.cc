#include "log/checkpoint.h"

#include <charconv>

#include "log/log_format.h"

namespace ketch::log {
namespace {

// Consumes "<key> <decimal>\n" from the front of `s`.
bool take_field(std::string_view& s, std::string_view key, int64_t& out) {
    if (!s.starts_with(key) || s.size() <= key.size() || s[key.size()] != ' ') return false;
    s.remove_prefix(key.size() + 1);
    auto nl = s.find('\n');
    if (nl == std::string_view::npos) return false;
    auto num = s.substr(0, nl);
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), out);
    if (ec != std::errc() || p != num.data() + num.size() || out < 0) return false;
    s.remove_prefix(nl + 1);
    return true;
}

constexpr std::string_view k_header = "ketch-checkpoint 1\n";

}  // namespace

std::string format_checkpoint(const checkpoint& c) {
    std::string s(k_header);
    s += "log_start_offset " + std::to_string(c.log_start_offset) + "\n";
    s += "recovery_point " + std::to_string(c.recovery_point) + "\n";
    return s;
}

std::optional<checkpoint> parse_checkpoint(std::string_view s) {
    if (!s.starts_with(k_header)) return std::nullopt;
    s.remove_prefix(k_header.size());
    checkpoint c;
    if (!take_field(s, "log_start_offset", c.log_start_offset)) return std::nullopt;
    if (!take_field(s, "recovery_point", c.recovery_point)) return std::nullopt;
    if (!s.empty()) return std::nullopt;
    return c;
}

log_result<std::optional<checkpoint>> read_checkpoint(io::file_system& fs, const std::string& dir) {
    auto b = io::read_file(fs, io::join_path(dir, k_checkpoint_file));
    if (!b) {
        if (b.error().kind == io::io_errc::not_found) return std::optional<checkpoint>{};
        return failure{from_io(b.error())};
    }
    return parse_checkpoint(std::string_view(reinterpret_cast<const char*>(b->data()), b->size()));
}

log_status write_checkpoint(io::file_system& fs, const std::string& dir, const checkpoint& c) {
    auto text = format_checkpoint(c);
    if (auto st = io::write_file_atomically(fs, io::join_path(dir, k_checkpoint_file), as_bytes(text)); !st)
        return failure{from_io(st.error())};
    return ok_v;
}

}  // namespace ketch::log
