#include "compare.h"

#include <map>

#include "json_path.h"

namespace ketch::conform {
namespace {

constexpr const char* k_key_fields[] = {"api_key", "partition_index", "index",        "partition", "name",
                                        "key",     "base_offset",     "offset_delta", "broker_id", "node_id"};

// Values compared by one-to-one correspondence: topic ids ("<uuid:...>") and
// producer ids ("<pid:...>"); the prefixes keep the two apart.
bool is_uuid_token(const json& v) {
    if (!v.is_string()) return false;
    auto& s = v.get_ref<const std::string&>();
    return s.rfind("<uuid:", 0) == 0 || s.rfind("<pid:", 0) == 0;
}

// The key field shared by every element of both arrays, with distinct scalar
// values on each side; nullptr when there is none.
const char* common_key(const json& k, const json& t) {
    for (const char* f : k_key_fields) {
        bool ok = true;
        for (const json* arr : {&k, &t}) {
            std::set<std::string> seen;
            for (auto& e : *arr) {
                ok = ok && e.is_object() && e.contains(f) && (e[f].is_string() || e[f].is_number_integer()) &&
                     seen.insert(e[f].dump()).second;
                if (!ok) break;
            }
            if (!ok) break;
        }
        if (ok) return f;
    }
    return nullptr;
}

std::string key_segment(const char* field, const json& v) {
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    std::string esc;
    for (char c : s) esc += c == '/' ? std::string("%2F") : std::string(1, c);
    return std::string(field) + "=" + esc;
}

}  // namespace

bool scenario_comparison::same_uuid(const std::string& k, const std::string& t) {
    auto a = kafka_to_ketch_.find(k);
    auto b = ketch_to_kafka_.find(t);
    if (a == kafka_to_ketch_.end() && b == ketch_to_kafka_.end()) {
        kafka_to_ketch_[k] = t;
        ketch_to_kafka_[t] = k;
        return true;
    }
    return a != kafka_to_ketch_.end() && a->second == t;
}

void scenario_comparison::diff_arrays(const json& k, const json& t, const std::string& path,
                                      std::vector<field_diff>& out) {
    if (k.empty() != t.empty()) {
        out.push_back({path, k, t});
        return;
    }
    const char* key = k.empty() ? nullptr : common_key(k, t);
    if (!key) {
        size_t n = std::max(k.size(), t.size());
        for (size_t i = 0; i < n; ++i)
            diff_into(i < k.size() ? k[i] : json(k_absent), i < t.size() ? t[i] : json(k_absent),
                      path + "/" + std::to_string(i), out);
        return;
    }
    std::map<std::string, const json*> theirs;
    for (auto& e : t) theirs[e[key].dump()] = &e;
    json korder = json::array(), torder = json::array();
    for (auto& e : k) {
        auto it = theirs.find(e[key].dump());
        diff_into(e, it == theirs.end() ? json(k_absent) : *it->second, path + "/" + key_segment(key, e[key]), out);
        if (it != theirs.end()) korder.push_back(e[key]);
    }
    std::set<std::string> ours;
    for (auto& e : k) ours.insert(e[key].dump());
    for (auto& e : t) {
        if (!ours.count(e[key].dump()))
            diff_into(json(k_absent), e, path + "/" + key_segment(key, e[key]), out);
        else
            torder.push_back(e[key]);
    }
    if (korder != torder) out.push_back({path + "/<order>", korder, torder});
}

void scenario_comparison::diff_into(const json& k, const json& t, const std::string& path,
                                    std::vector<field_diff>& out) {
    if (k.is_object() && t.is_object()) {
        for (auto& [key, kv] : k.items())
            diff_into(kv, t.contains(key) ? t[key] : json(k_absent), path + "/" + key, out);
        for (auto& [key, tv] : t.items())
            if (!k.contains(key)) diff_into(json(k_absent), tv, path + "/" + key, out);
        return;
    }
    if (k.is_array() && t.is_array()) {
        diff_arrays(k, t, path, out);
        return;
    }
    if (is_uuid_token(k) && is_uuid_token(t)) {
        if (!same_uuid(k.get<std::string>(), t.get<std::string>())) out.push_back({path, k, t});
        return;
    }
    if (k != t) out.push_back({path.empty() ? "/" : path, k, t});
}

// kind "subset": Kafka's array at the entry's path keeps only the elements
// whose key ketch's array also has; what is left is compared as usual.
void scenario_comparison::apply_subset(const allowed_difference& d, json& kafka, const json& ketch) {
    json::json_pointer p(d.path);
    if (!kafka.contains(p) || !ketch.contains(p)) return;
    json& karr = kafka.at(p);
    const json& tarr = ketch.at(p);
    if (!karr.is_array() || !tarr.is_array()) return;
    usage_.considered.insert(d.id);
    std::set<std::string> keys;
    for (auto& e : tarr)
        if (e.is_object() && e.contains(d.key)) keys.insert(e[d.key].dump());
    json kept = json::array();
    for (auto& e : karr)
        if (e.is_object() && e.contains(d.key) && keys.count(e[d.key].dump())) kept.push_back(e);
    if (kept.size() != karr.size()) usage_.used.insert(d.id);
    karr = kept;
}

std::string show_value(const json& v) {
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 160) s = s.substr(0, 157) + "...";
    return s;
}

step_verdict scenario_comparison::compare(const step_outcome& kafka, const step_outcome& ketch) {
    step_verdict v;
    v.step_id = kafka.id;
    for (auto& d : allowed_)
        if (d.kind == "value" && d.applies_to(scenario_, v.step_id)) usage_.considered.insert(d.id);
    auto judge = [&](field_diff& fd, const json& ketch_value) {
        for (auto& d : allowed_)
            if (d.applies_to(scenario_, v.step_id) && d.allows(fd.path, fd.kafka, ketch_value)) {
                fd.allowed_by = &d;
                usage_.used.insert(d.id);
                return;
            }
    };
    if (kafka.outcome != ketch.outcome) {
        v.diffs.push_back({"<outcome>", kafka.outcome, ketch.outcome});
        judge(v.diffs.back(), ketch.outcome);
        if (!ketch.detail.empty()) v.diffs.back().ketch = ketch.outcome + " (" + ketch.detail + ")";
        return v;
    }
    if (kafka.outcome != "response") return v;
    json k = kafka.response;
    for (auto& d : allowed_)
        if (d.kind == "subset" && d.applies_to(scenario_, v.step_id)) apply_subset(d, k, ketch.response);
    diff_into(k, ketch.response, "", v.diffs);
    for (auto& fd : v.diffs) judge(fd, fd.ketch);
    return v;
}

}  // namespace ketch::conform
