#include "shared/pg_quota_store.h"

#include <charconv>
#include <cstdint>

namespace ketch::shared {

namespace {

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
        put_prefixed(out, type);
        out += name ? '\1' : '\0';
        if (name) put_prefixed(out, *name);
    }
    return out;
}

std::optional<meta::quota_entity_parts> decode_quota_entity(const std::string& bytes) {
    meta::quota_entity_parts out;
    size_t pos = 0;
    while (pos < bytes.size()) {
        auto type = take_prefixed(bytes, pos);
        if (!type || pos >= bytes.size()) return std::nullopt;
        const bool named = bytes[pos++] == '\1';
        std::optional<std::string> name;
        if (named && !(name = take_prefixed(bytes, pos))) return std::nullopt;
        out.emplace_back(std::move(*type), std::move(name));
    }
    return out;
}

result<std::vector<meta::quota_value>, meta::store_error> pg_quota_store::load() {
    auto rows = session_.select(notice_, "SELECT encode(entity, 'hex'), key, value FROM " + table_);
    if (!rows.ok()) return failure{rows.error()};
    std::vector<meta::quota_value> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        auto e = decode_quota_entity(from_hex(rows->at(i, 0)));
        if (!e) return failure{meta::store_error{table_ + ": a malformed entity"}};
        out.push_back({std::move(*e), rows->at(i, 1), std::stod(rows->at(i, 2))});
    }
    return out;
}

status<meta::store_error> pg_quota_store::apply(const std::vector<meta::quota_change>& changes) {
    return session_.transaction(notice_, notice_, [&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        for (auto& ch : changes) {
            const std::string entity = to_bytea_hex(encode_quota_entity(ch.entity));
            auto r = ch.value ? pg.exec("INSERT INTO " + table_ +
                                            " (entity, key, value) VALUES ($1::bytea, $2, $3) "
                                            "ON CONFLICT (entity, key) DO UPDATE SET value = EXCLUDED.value",
                                        {entity, ch.key, exact(*ch.value)})
                              : pg.exec("DELETE FROM " + table_ + " WHERE entity = $1::bytea AND key = $2",
                                        {entity, ch.key});
            if (!r.ok()) return failure{r.error()};
        }
        return ok_v;
    });
}

}  // namespace ketch::shared
