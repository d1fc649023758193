#include "cli/format.h"

#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "security/crypto.h"

namespace ketch::cli {

bytes to_bytes(std::string_view s) { return bytes(s.begin(), s.end()); }

namespace {

std::string_view as_text(const bytes& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }
}  // namespace

format_parse parse_format(std::string_view spec) {
    format f;
    auto lit = [&](char c) {
        if (f.tokens.empty() || f.tokens.back().kind != field::literal) f.tokens.push_back({field::literal, {}});
        f.tokens.back().text += c;
    };
    for (size_t i = 0; i < spec.size(); ++i) {
        char c = spec[i];
        if (c == '\\') {
            if (i + 1 == spec.size())
                return {std::nullopt, "format ends with a lone '\\' (write \\\\ for a backslash)"};
            char e = spec[++i];
            switch (e) {
                case 'n': lit('\n'); break;
                case 't': lit('\t'); break;
                case 'r': lit('\r'); break;
                case '0': lit('\0'); break;
                case '\\': lit('\\'); break;
                default:
                    return {std::nullopt, "unknown escape '\\" + std::string(1, e) + "' at position " +
                                              std::to_string(i) + " (known: \\n \\t \\r \\0 \\\\)"};
            }
            continue;
        }
        if (c != '%') {
            lit(c);
            continue;
        }
        if (i + 1 == spec.size()) return {std::nullopt, "format ends with a lone '%' (write %% for a percent sign)"};
        char d = spec[++i];
        field k;
        switch (d) {
            case '%': lit('%'); continue;
            case 't': k = field::topic; break;
            case 'p': k = field::partition; break;
            case 'o': k = field::offset; break;
            case 'k': k = field::key; break;
            case 'v':
            case 's': k = field::value; break;
            case 'h': k = field::headers; break;
            case 'd':
            case 'T': k = field::timestamp; break;
            case 'K': k = field::key_length; break;
            case 'S': k = field::value_length; break;
            default:
                return {std::nullopt, "unknown directive '%" + std::string(1, d) + "' at position " +
                                          std::to_string(i - 1) + " (known: %t %p %o %k %v %s %h %d %T %K %S %%)"};
        }
        f.tokens.push_back({k, {}});
    }
    return {std::move(f), {}};
}

std::string render(const format& f, const message& m) {
    std::string out;
    for (auto& t : f.tokens) {
        switch (t.kind) {
            case field::literal: out += t.text; break;
            case field::topic: out += m.topic; break;
            case field::partition: out += std::to_string(m.partition); break;
            case field::offset: out += std::to_string(m.offset); break;
            case field::key:
                if (m.key) out += as_text(*m.key);
                break;
            case field::value:
                if (m.value) out += as_text(*m.value);
                break;
            case field::timestamp: out += std::to_string(m.timestamp); break;
            case field::key_length: out += std::to_string(m.key ? int64_t(m.key->size()) : -1); break;
            case field::value_length: out += std::to_string(m.value ? int64_t(m.value->size()) : -1); break;
            case field::headers: {
                bool first = true;
                for (auto& [k, v] : m.headers) {
                    if (!first) out += ',';
                    first = false;
                    out += k;
                    if (v) out += "=" + std::string(as_text(*v));
                }
                break;
            }
        }
    }
    return out;
}

std::pair<std::string, std::optional<bytes>> parse_header(std::string_view kv) {
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) return {std::string(kv), std::nullopt};
    return {std::string(kv.substr(0, eq)), to_bytes(kv.substr(eq + 1))};
}

read_result read_with_format(const format& f, std::string_view in) {
    read_result out;
    size_t pos = 0;
    int record = 0;
    while (pos < in.size()) {
        ++record;
        message m;
        for (size_t i = 0; i < f.tokens.size(); ++i) {
            auto& t = f.tokens[i];
            if (t.kind == field::literal) {
                if (in.substr(pos, t.text.size()) != t.text) {
                    // A last record without its final delimiter is accepted.
                    if (i + 1 == f.tokens.size() && pos == in.size()) break;
                    out.error = "record " + std::to_string(record) + ": expected '" + t.text + "' at byte " +
                                std::to_string(pos);
                    return out;
                }
                pos += t.text.size();
                continue;
            }
            size_t end = in.size();
            if (i + 1 < f.tokens.size()) {
                auto& next = f.tokens[i + 1];
                if (next.kind != field::literal) {
                    out.error = "two fields without a delimiter between them cannot be read";
                    return out;
                }
                end = in.find(next.text, pos);
                if (end == std::string_view::npos) end = in.size();
            }
            auto text = in.substr(pos, end - pos);
            pos = end;
            auto number = [&](int64_t& v, const char* what) {
                try {
                    size_t used = 0;
                    v = std::stoll(std::string(text), &used);
                    if (used != text.size()) throw std::invalid_argument("");
                    return true;
                } catch (const std::exception&) {
                    out.error = "record " + std::to_string(record) + ": " + what + " '" + std::string(text) +
                                "' is not a number";
                    return false;
                }
            };
            int64_t n = 0;
            switch (t.kind) {
                case field::key: m.key = to_bytes(text); break;
                case field::value: m.value = to_bytes(text); break;
                case field::topic: m.topic = text; break;
                case field::partition:
                    if (!number(n, "partition")) return out;
                    m.partition = int32_t(n);
                    break;
                case field::timestamp:
                    if (!number(n, "timestamp")) return out;
                    m.timestamp = n;
                    break;
                case field::headers: {
                    size_t s = 0;
                    while (s < text.size()) {
                        size_t c = text.find(',', s);
                        if (c == std::string_view::npos) c = text.size();
                        if (c > s) m.headers.push_back(parse_header(text.substr(s, c - s)));
                        s = c + 1;
                    }
                    break;
                }
                default: out.error = "%o, %K and %S cannot be read when producing"; return out;
            }
        }
        out.messages.push_back(std::move(m));
    }
    return out;
}

namespace {
void put(nlohmann::ordered_json& j, const char* name, const std::optional<bytes>& b) {
    if (!b) {
        j[name] = nullptr;
    } else if (is_valid_utf8(as_text(*b))) {
        j[name] = std::string(as_text(*b));
    } else {
        j[std::string(name) + "_base64"] = security::base64_encode(as_text(*b));
    }
}
}  // namespace

std::string to_json_line(const message& m) {
    nlohmann::ordered_json j;
    j["topic"] = m.topic;
    j["partition"] = m.partition;
    j["offset"] = m.offset;
    j["timestamp"] = m.timestamp;
    put(j, "key", m.key);
    put(j, "value", m.value);
    auto hs = nlohmann::ordered_json::array();
    for (auto& [k, v] : m.headers) {
        nlohmann::ordered_json h;
        h["key"] = k;
        put(h, "value", v);
        hs.push_back(std::move(h));
    }
    j["headers"] = std::move(hs);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<message> from_json_line(std::string_view line, std::string& error) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        error = "not a JSON object";
        return std::nullopt;
    }
    message m;
    auto get = [&](const nlohmann::json& o, const std::string& name, std::optional<bytes>& out) {
        if (auto it = o.find(name); it != o.end() && !it->is_null()) {
            if (!it->is_string()) {
                error = name + " must be a string";
                return false;
            }
            out = to_bytes(it->get<std::string>());
        }
        if (auto it = o.find(name + "_base64"); it != o.end()) {
            auto raw = it->is_string() ? security::base64_decode(it->get<std::string>()) : std::nullopt;
            if (!raw) {
                error = name + "_base64 must be base64";
                return false;
            }
            out = to_bytes(*raw);
        }
        return true;
    };
    if (!get(j, "key", m.key) || !get(j, "value", m.value)) return std::nullopt;
    if (auto it = j.find("partition"); it != j.end() && it->is_number_integer()) m.partition = it->get<int32_t>();
    if (auto it = j.find("timestamp"); it != j.end() && it->is_number_integer()) m.timestamp = it->get<int64_t>();
    if (auto it = j.find("headers"); it != j.end()) {
        if (it->is_object()) {
            for (auto& [k, v] : it->items())
                m.headers.emplace_back(
                    k, v.is_string() ? std::optional<bytes>(to_bytes(v.get<std::string>())) : std::nullopt);
        } else if (it->is_array()) {
            for (auto& h : *it) {
                if (!h.is_object() || !h.contains("key") || !h["key"].is_string()) {
                    error = "headers must be [{\"key\":..., \"value\":...}] or {\"k\": \"v\"}";
                    return std::nullopt;
                }
                std::optional<bytes> v;
                if (!get(h, "value", v)) return std::nullopt;
                m.headers.emplace_back(h["key"].get<std::string>(), std::move(v));
            }
        }
    }
    return m;
}

}  // namespace ketch::cli
