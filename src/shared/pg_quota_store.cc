#include "shared/pg_quota_store.h"

#include <charconv>
#include <cstdint>

#include "shared/pg_offset_store.h"

namespace ketch::shared {

namespace {

void put_string(std::string& out, const std::string& s) {
    const auto n = uint32_t(s.size());
    for (int shift = 24; shift >= 0; shift -= 8) out += char((n >> shift) & 0xff);
    out += s;
}

// The next length-prefixed string at `pos`; nullopt when the bytes end early.
std::optional<std::string> take_string(const std::string& in, size_t& pos) {
    if (in.size() - pos < 4) return std::nullopt;
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = n << 8 | uint8_t(in[pos + size_t(i)]);
    pos += 4;
    if (in.size() - pos < n) return std::nullopt;
    std::string s = in.substr(pos, n);
    pos += n;
    return s;
}

// The shortest text that reads back as the same double.
std::string exact(double v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

}  // namespace

std::string encode_quota_entity(const meta::quota_entity_parts& e) {
    std::string out;
    for (auto& [type, name] : e) {
        put_string(out, type);
        out += name ? '\1' : '\0';
        if (name) put_string(out, *name);
    }
    return out;
}

std::optional<meta::quota_entity_parts> decode_quota_entity(const std::string& bytes) {
    meta::quota_entity_parts out;
    size_t pos = 0;
    while (pos < bytes.size()) {
        auto type = take_string(bytes, pos);
        if (!type || pos >= bytes.size()) return std::nullopt;
        const bool named = bytes[pos++] == '\1';
        std::optional<std::string> name;
        if (named && !(name = take_string(bytes, pos))) return std::nullopt;
        out.emplace_back(std::move(*type), std::move(name));
    }
    return out;
}

result<std::vector<meta::quota_value>, meta::store_error> pg_quota_store::load() {
    std::lock_guard l(session_.mu());
    auto c = session_.conn();
    if (!c.ok()) return failure{c.error()};
    auto rows = (*c)->exec("SELECT encode(entity, 'hex'), key, value FROM ketch_client_quotas");
    if (!rows.ok()) return failure{pg_failed("quotas", rows.error())};
    std::vector<meta::quota_value> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        auto e = decode_quota_entity(from_hex(rows->at(i, 0)));
        if (!e) return failure{meta::store_error{"ketch_client_quotas: a malformed entity"}};
        out.push_back({std::move(*e), rows->at(i, 1), std::stod(rows->at(i, 2))});
    }
    return out;
}

status<meta::store_error> pg_quota_store::apply(const std::vector<meta::quota_change>& changes) {
    return session_.transaction("quotas", [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        for (auto& ch : changes) {
            const std::string entity = to_bytea_hex(encode_quota_entity(ch.entity));
            auto r = ch.value ? pg.exec(
                                    "INSERT INTO ketch_client_quotas (entity, key, value) VALUES ($1::bytea, $2, $3) "
                                    "ON CONFLICT (entity, key) DO UPDATE SET value = EXCLUDED.value",
                                    {entity, ch.key, exact(*ch.value)})
                              : pg.exec("DELETE FROM ketch_client_quotas WHERE entity = $1::bytea AND key = $2",
                                        {entity, ch.key});
            if (!r.ok()) return failure{r.error()};
        }
        auto n = pg.exec("SELECT pg_notify('ketch_commit', $1)", {std::string(k_quotas_changed)});
        if (!n.ok()) return failure{n.error()};
        return ok_v;
    });
}

}  // namespace ketch::shared
