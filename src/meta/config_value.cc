#include "meta/config_value.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <locale.h>
#include <stdlib.h>

#include "base/utf8.h"
#include "meta/iso_duration.h"

namespace ketch::meta {

namespace {

// String.trim(): strips every char <= U+0020 at both ends.
std::string_view java_trim(std::string_view s) {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) s.remove_prefix(1);
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) s.remove_suffix(1);
    return s;
}

bool is_regex_space(char c) {  // java.util.regex \s
    return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r';
}

// String.equalsIgnoreCase against a lower-case ASCII word. Besides ASCII
// case, Java folds U+017F (long s) to 's'; no other character folds onto the
// letters of "true"/"false".
bool iequals(std::string_view s, std::string_view word) {
    size_t i = 0, w = 0;
    while (i < s.size()) {
        uint32_t cp = next_code_point(s, i);
        if (cp >= 'A' && cp <= 'Z') cp += 32;
        if (cp == 0x17f) cp = 's';
        if (w >= word.size() || cp != static_cast<unsigned char>(word[w++])) return false;
    }
    return w == word.size();
}

// Character.digit(c, 10) for a BMP code point: Java accepts every Unicode
// decimal digit block (these are the zeros of the 37 blocks Java 17 knows).
int java_decimal_digit(uint32_t cp) {
    static constexpr uint32_t zeros[] = {0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6,
                                         0x0C66, 0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0,
                                         0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620,
                                         0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10};
    for (uint32_t z : zeros)
        if (cp >= z && cp < z + 10) return int(cp - z);
    return -1;
}

// Long.parseLong / Integer.parseInt / Short.parseShort: an optional sign,
// then one or more decimal digits (any Unicode decimal digit, as Java).
bool parse_integer(std::string_view s, int64_t lo, int64_t hi, int64_t& out) {
    bool neg = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return false;
    // Accumulate negatively so that the most negative value fits.
    int64_t acc = 0;
    for (size_t i = 0; i < s.size();) {
        int d = java_decimal_digit(next_code_point(s, i));
        if (d < 0) return false;
        if (acc < (std::numeric_limits<int64_t>::min() + d) / 10) return false;
        acc = acc * 10 - d;
    }
    if (!neg) {
        if (acc == std::numeric_limits<int64_t>::min()) return false;
        acc = -acc;
    }
    if (acc < lo || acc > hi) return false;
    out = acc;
    return true;
}

size_t count_digits(std::string_view s, size_t i, bool hex) {
    size_t n = 0;
    while (i + n < s.size() && (hex ? std::isxdigit(static_cast<unsigned char>(s[i + n])) != 0 : is_digit(s[i + n])))
        ++n;
    return n;
}

// Double.parseDouble: Java's floating literal grammar (decimal or hex, an
// optional f/F/d/D suffix, "NaN", "Infinity"), nothing else.
bool parse_double(std::string_view s, double& out) {
    size_t i = 0;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    std::string_view rest = s.substr(i);
    if (rest == "NaN") return out = std::numeric_limits<double>::quiet_NaN(), true;
    if (rest == "Infinity") return out = neg ? -HUGE_VAL : HUGE_VAL, true;
    bool hex = rest.size() > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X');
    size_t p = i + (hex ? 2 : 0);
    size_t int_digits = count_digits(s, p, hex);
    p += int_digits;
    size_t frac_digits = 0;
    if (p < s.size() && s[p] == '.') {
        frac_digits = count_digits(s, p + 1, hex);
        p += 1 + frac_digits;
    }
    if (int_digits + frac_digits == 0) return false;
    if (p < s.size() && (hex ? (s[p] == 'p' || s[p] == 'P') : (s[p] == 'e' || s[p] == 'E'))) {
        size_t q = p + 1;
        if (q < s.size() && (s[q] == '+' || s[q] == '-')) ++q;
        size_t exp_digits = count_digits(s, q, false);
        if (exp_digits == 0) return false;
        p = q + exp_digits;
    } else if (hex) {
        return false;  // a hex literal needs its binary exponent
    }
    if (p < s.size() && (s[p] == 'f' || s[p] == 'F' || s[p] == 'd' || s[p] == 'D')) ++p;
    if (p != s.size()) return false;
    std::string body(s.substr(0, p));
    if (!body.empty() && (body.back() == 'f' || body.back() == 'F' || body.back() == 'd' || body.back() == 'D'))
        body.pop_back();
    // Correctly rounded; overflow gives +-HUGE_VAL and underflow 0, as in Java.
    // The "C" locale keeps '.' the decimal point whatever the process locale is.
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t(0));
    out = strtod_l(body.c_str(), nullptr, c_locale);
    return true;
}

// Pattern "\s*,\s*" split with limit -1 on an already trimmed, non-empty string.
list_value split_list(std::string_view s) {
    list_value out;
    size_t start = 0;
    for (;;) {
        size_t comma = s.find(',', start);
        std::string_view piece = s.substr(start, comma == std::string_view::npos ? s.npos : comma - start);
        if (start > 0)
            while (!piece.empty() && is_regex_space(piece.front())) piece.remove_prefix(1);
        if (comma != std::string_view::npos)
            while (!piece.empty() && is_regex_space(piece.back())) piece.remove_suffix(1);
        out.emplace_back(piece);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string java_list_to_string(const list_value& l) {  // AbstractCollection.toString
    std::string s = "[";
    for (size_t i = 0; i < l.size(); ++i) {
        if (i) s += ", ";
        s += l[i];
    }
    return s + "]";
}

std::string value_for_message(const config_value& v) {  // Java's toString of the parsed object
    if (auto* l = std::get_if<list_value>(&v)) return java_list_to_string(*l);
    return config_value_to_string(v);
}

std::string invalid(std::string_view name, std::string_view value, std::string_view why) {
    return "Invalid value " + std::string(value) + " for configuration " + std::string(name) + ": " + std::string(why);
}

bool contains(std::span<const std::string_view> set, std::string_view s) {
    return std::find(set.begin(), set.end(), s) != set.end();
}

std::string one_of(const topic_config& def) {
    std::string s = "String must be one of: ";
    for (size_t i = 0; i < def.valid_values.size(); ++i) {
        if (i) s += ", ";
        s += def.valid_values[i];
    }
    return s;
}

bool throttled_replica_ok(std::string_view s) {  // ([0-9]+:[0-9]+)?
    if (s.empty()) return true;
    size_t colon = s.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == s.size()) return false;
    auto digits = [](std::string_view d) { return std::all_of(d.begin(), d.end(), is_digit); };
    return digits(s.substr(0, colon)) && digits(s.substr(colon + 1));
}

std::optional<std::string> run_validator(const topic_config& def, const config_value& v) {
    switch (def.validator) {
        case validator_kind::none: return std::nullopt;
        case validator_kind::range: {
            double n = std::holds_alternative<double>(v) ? std::get<double>(v) : double(std::get<int64_t>(v));
            if (def.min && n < double(*def.min))
                return invalid(def.name, value_for_message(v), "Value must be at least " + std::to_string(*def.min));
            if (def.max && n > double(*def.max))
                return invalid(def.name, value_for_message(v),
                               "Value must be no more than " + std::to_string(*def.max));
            return std::nullopt;
        }
        case validator_kind::valid_string: {
            const auto& s = std::get<std::string>(v);
            if (!contains(def.valid_values, s)) return invalid(def.name, s, one_of(def));
            return std::nullopt;
        }
        case validator_kind::valid_list:
        case validator_kind::any_list:
            for (const auto& s : std::get<list_value>(v)) {
                if (s.empty()) return "Configuration '" + std::string(def.name) + "' values must not be empty.";
                if (def.validator == validator_kind::valid_list && !contains(def.valid_values, s))
                    return invalid(def.name, s, one_of(def));
            }
            return std::nullopt;
        case validator_kind::gzip_level: {
            int64_t level = std::get<int64_t>(v);
            if (level > 9 || (level < 1 && level != -1))
                return invalid(def.name, std::to_string(level), "Value must be between 1 and 9 or equal to -1");
            return std::nullopt;
        }
        case validator_kind::throttled_replicas: {
            const auto& l = std::get<list_value>(v);
            std::string joined;
            bool all_ok = true;
            for (const auto& s : l) {
                auto t = java_trim(s);
                joined += t;
                all_ok = all_ok && throttled_replica_ok(t);
            }
            if (!all_ok && joined != "*")
                return invalid(def.name, java_list_to_string(l),
                               std::string(def.name) +
                                   " must be the literal '*' or a list of replicas in the following format: "
                                   "[partitionId]:[brokerId],[partitionId]:[brokerId],...");
            return std::nullopt;
        }
        case validator_kind::share_offset_reset: {
            const auto& s = std::get<std::string>(v);
            if (s == "earliest" || s == "latest" || share_reset_duration_ms(s)) return std::nullopt;
            return invalid(def.name, s,
                           "Invalid value `" + s + "` for configuration " + std::string(def.name) +
                               ". The value must be either 'earliest', 'latest' or of the format "
                               "'by_duration:<PnDTnHnMn.nS>'.");
        }
    }
    return std::nullopt;
}

}  // namespace

result<config_value, std::string> parse_config_value(const topic_config& def, std::string_view raw) {
    std::string_view t = java_trim(raw);
    auto not_a_number = [&] {
        return failure{invalid(def.name, raw, "Not a number of type " + std::string(kafka_type_name(def.type)))};
    };
    config_value v;
    switch (def.type) {
        case config_type::boolean:
            if (iequals(t, "true"))
                v = true;
            else if (iequals(t, "false"))
                v = false;
            else
                return failure{invalid(def.name, raw, "Expected value to be either true or false")};
            break;
        case config_type::string:
        case config_type::password:
        case config_type::class_name: v = std::string(t); break;
        case config_type::int16:
        case config_type::int32:
        case config_type::int64: {
            int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
            if (def.type == config_type::int32) lo = INT32_MIN, hi = INT32_MAX;
            if (def.type == config_type::int16) lo = INT16_MIN, hi = INT16_MAX;
            int64_t n = 0;
            if (!parse_integer(t, lo, hi, n)) return not_a_number();
            v = n;
            break;
        }
        case config_type::float64: {
            double d = 0;
            if (!parse_double(t, d)) return not_a_number();
            v = d;
            break;
        }
        case config_type::list: {
            list_value l = t.empty() ? list_value{} : split_list(t);
            if (def.validator == validator_kind::valid_list || def.validator == validator_kind::any_list) {
                // parseValue drops repeats for a ValidList
                list_value uniq;
                for (auto& s : l)
                    if (std::find(uniq.begin(), uniq.end(), s) == uniq.end()) uniq.push_back(std::move(s));
                l = std::move(uniq);
            }
            v = std::move(l);
            break;
        }
    }
    if (auto e = run_validator(def, v)) return failure{std::move(*e)};
    return v;
}

std::string java_double_to_string(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
    if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
    // Shortest round-trip digits, then Java's layout.
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
    std::string_view sci(buf, size_t(r.ptr - buf));  // d[.ddd]e[+-]XX
    size_t e = sci.find('e');
    std::string digits;
    for (char c : sci.substr(0, e))
        if (c != '.') digits.push_back(c);
    int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
    std::string out = d < 0 ? "-" : "";
    double a = std::fabs(d);
    if (a >= 1e-3 && a < 1e7) {
        if (exp >= 0) {
            std::string ip = digits.substr(0, std::min(digits.size(), size_t(exp) + 1));
            ip.append(size_t(exp) + 1 - ip.size(), '0');
            std::string fp = digits.size() > size_t(exp) + 1 ? digits.substr(size_t(exp) + 1) : "0";
            out += ip + "." + fp;
        } else {
            out += "0." + std::string(size_t(-exp - 1), '0') + digits;
        }
    } else {
        out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" + std::to_string(exp);
    }
    return out;
}

std::string config_value_to_string(const config_value& v) {
    struct visitor {
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(int64_t n) const { return std::to_string(n); }
        std::string operator()(double d) const { return java_double_to_string(d); }
        std::string operator()(const std::string& s) const { return s; }
        std::string operator()(const list_value& l) const {
            std::string s;
            for (size_t i = 0; i < l.size(); ++i) {
                if (i) s += ",";
                s += l[i];
            }
            return s;
        }
    };
    return std::visit(visitor{}, v);
}

std::string canonical_config_value(const topic_config& def, std::string_view raw) {
    auto v = parse_config_value(def, raw);
    return v ? config_value_to_string(*v) : std::string(raw);
}

}  // namespace ketch::meta
