#include "meta/config_ops.h"

#include <algorithm>
#include <vector>

#include "meta/topic_config.h"

namespace ketch::meta {

namespace {

// Java's String.split(","): trailing empty strings are dropped; "" gives [""].
std::vector<std::string> java_split_comma(std::string_view s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t comma = s.find(',', start);
        out.emplace_back(s.substr(start, comma == std::string_view::npos ? s.npos : comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    if (s.empty()) return out;
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

std::string join_list(const std::vector<std::string>& parts) {
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) s += ",";
        s += parts[i];
    }
    return s;
}

}  // namespace

result<config_map, error> apply_config_ops(const config_map& current, std::span<const config_op> ops) {
    config_map next = current;
    for (const auto& op : ops) {
        switch (op.op) {
            case config_op_type::set: next.insert_or_assign(op.key, op.value); break;
            case config_op_type::remove: next.erase(op.key); break;
            case config_op_type::append:
            case config_op_type::subtract: {
                const topic_config* def = find_topic_config(op.key);
                if (!def || def->type != config_type::list)
                    return failure{
                        error{errc::invalid_config, std::string("Can't ") +
                                                        (op.op == config_op_type::append ? "APPEND" : "SUBTRACT") +
                                                        " to key " + op.key + " because its type is not LIST."}};
                auto it = next.find(op.key);
                std::string base = it != next.end() ? it->second : std::string(def->default_value);
                std::vector<std::string> parts;
                for (auto& p : java_split_comma(base))
                    if (!p.empty()) parts.push_back(std::move(p));
                for (const auto& v : java_split_comma(op.value)) {
                    auto pos = std::find(parts.begin(), parts.end(), v);
                    if (op.op == config_op_type::append && pos == parts.end()) parts.push_back(v);
                    if (op.op == config_op_type::subtract && pos != parts.end()) parts.erase(pos);
                }
                next.insert_or_assign(op.key, join_list(parts));
                break;
            }
        }
    }
    return next;
}

}  // namespace ketch::meta
