#include "shared/pg_session.h"

#include <cstdint>

namespace ketch::shared {

meta::store_error pg_failed(const char* what, const cluster::pg_error& e) {
    return {std::string(what) + ": PostgreSQL: " + e.message};
}

std::string to_bytea_hex(const std::string& raw) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out = "\\x";
    out.reserve(2 + raw.size() * 2);
    for (unsigned char ch : raw) {
        out += digits[ch >> 4];
        out += digits[ch & 15];
    }
    return out;
}

std::string from_hex(const std::string& hex) {
    auto nibble = [](char ch) { return ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10; };
    std::string out;
    out.reserve(hex.size() / 2);
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out += char(nibble(hex[i]) << 4 | nibble(hex[i + 1]));
    return out;
}

void put_prefixed(std::string& out, const std::string& s) {
    const auto n = uint32_t(s.size());
    for (int shift = 24; shift >= 0; shift -= 8) out += char((n >> shift) & 0xff);
    out += s;
}

std::optional<std::string> take_prefixed(const std::string& in, size_t& pos) {
    if (in.size() - pos < 4) return std::nullopt;
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = n << 8 | uint8_t(in[pos + size_t(i)]);
    pos += 4;
    if (in.size() - pos < n) return std::nullopt;
    std::string s = in.substr(pos, n);
    pos += n;
    return s;
}

status<cluster::pg_error> notify_commit(cluster::pg_connection& pg, const char* payload) {
    auto n = pg.exec("SELECT pg_notify('ketch_commit', $1)", {std::string(payload)});
    if (!n.ok()) return failure{n.error()};
    return ok_v;
}

result<cluster::pg_connection*, meta::store_error> pg_session::conn() {
    if (held_.get()) return held_.get();
    auto c = pool_.take();
    if (!c.ok()) return failure{pg_failed(store_, c.error())};
    held_ = std::move(*c);
    return held_.get();
}

result<cluster::pg_rows, meta::store_error> pg_session::select(const char* what, const std::string& sql,
                                                               const cluster::pg_params& params) {
    return query(what, [&](cluster::pg_connection& pg) { return pg.exec(sql, params); });
}

}  // namespace ketch::shared
