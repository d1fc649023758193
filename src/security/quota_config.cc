#include "security/quota_config.h"

#include <arpa/inet.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <set>

namespace ketch::security {

namespace {

enum class value_type { long_t, double_t, int_t };

quota_error invalid(std::string msg) { return {error_code::invalid_request, std::move(msg)}; }

// QuotaConfig.userAndClientQuotaConfigs / ipConfigs.
std::map<std::string, value_type> keys_for(const quota_entity& e) {
    if (e.count(k_ip)) return {{k_connection_creation_rate, value_type::int_t}};
    return {{k_producer_byte_rate, value_type::long_t},
            {k_consumer_byte_rate, value_type::long_t},
            {k_request_percentage, value_type::double_t},
            {k_controller_mutation_rate, value_type::double_t}};
}

// ClientQuotaControlManager.isValidIpEntity: an address (ketch does not
// resolve host names; Kafka accepts a resolvable one).
bool valid_ip(const std::optional<std::string>& ip) {
    if (!ip) return true;
    unsigned char buf[16];
    return inet_pton(AF_INET, ip->c_str(), buf) == 1 || inet_pton(AF_INET6, ip->c_str(), buf) == 1 ||
           *ip == "localhost";
}

std::optional<quota_error> validate_entity(const quota_entity& e) {
    if (e.empty()) return invalid("Invalid empty client quota entity");
    for (auto& [type, name] : e) {
        if (type != k_user && type != k_client_id && type != k_ip)
            return invalid("Unhandled client quota entity type: " + type);
        if (name && name->empty()) return invalid("Empty " + type + " not supported");
    }
    // configKeysForEntityType
    if (e.count(k_ip)) {
        if (e.count(k_user) || e.count(k_client_id))
            return invalid("Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId");
        if (!valid_ip(e.at(k_ip))) return invalid(*e.at(k_ip) + " is not a valid IP or resolvable host.");
    }
    return std::nullopt;
}

std::optional<quota_error> validate_value(const std::map<std::string, value_type>& keys, const std::string& key,
                                          double v) {
    auto it = keys.find(key);
    if (it == keys.end()) return invalid("Invalid configuration key " + key);
    if (v <= 0.0) return invalid("Quota " + key + " must be greater than 0");
    switch (it->second) {
        case value_type::double_t: return std::nullopt;
        case value_type::int_t:
            if (v > double(std::numeric_limits<int32_t>::max()))
                return invalid("Proposed value for " + key + " is too large for an INT.");
            break;
        case value_type::long_t:
            if (v > double(std::numeric_limits<int64_t>::max()))
                return invalid("Proposed value for " + key + " is too large for a LONG.");
            break;
    }
    if (std::abs(std::fmod(v, 1.0)) > 1e-6) return invalid(key + " cannot be a fractional value.");
    return std::nullopt;
}

meta::quota_entity_parts to_parts(const quota_entity& e) { return {e.begin(), e.end()}; }

}  // namespace

std::string to_string(const quota_entity& e) {
    std::string s = "ClientQuotaEntity(entries={";
    bool first = true;
    for (auto& [type, name] : e) {
        if (!first) s += ", ";
        first = false;
        s += type + "=" + (name ? *name : "null");
    }
    return s + "})";
}

// The store is read under the change lock: an alter of this broker cannot
// land between the read and the swap and be lost (cluster mode's reloads).
status<meta::store_error> quota_config::load() {
    std::lock_guard changing(change_mu_);
    auto all = store_.load();
    if (!all.ok()) return failure{all.error()};
    std::unique_lock lock(mu_);
    values_.clear();
    key_uses_.clear();
    for (auto& v : *all) {
        auto& vals = values_[quota_entity(v.entity.begin(), v.entity.end())];
        if (!vals.count(v.key)) ++key_uses_[v.key];
        vals[v.key] = v.value;
    }
    ++generation_;
    return ok_v;
}

result<std::vector<quota_alter_result>, meta::store_error> quota_config::alter(
    const std::vector<quota_alteration>& entries, bool validate_only) {
    std::lock_guard changing(change_mu_);  // values_ is read here without mu_: only changes change it
    std::vector<quota_alter_result> results;
    std::vector<meta::quota_change> changes;
    auto find_result = [&](const quota_entity& e) -> quota_alter_result* {
        for (auto& r : results)
            if (r.entity == e) return &r;
        return nullptr;
    };
    auto set_result = [&](const quota_entity& e, std::optional<quota_error> err) {
        auto* r = find_result(e);
        if (!r) r = &results.emplace_back(quota_alter_result{e});
        r->code = err ? err->code : error_code::none;
        r->message = err ? std::optional<std::string>(err->message) : std::nullopt;
    };
    for (auto& a : entries) {
        quota_entity entity;
        for (auto& [type, name] : a.entity) entity[type] = name;
        // ClientQuotaControlManager.alterClientQuotas: a key named twice or an
        // entity named twice answers INVALID_REQUEST (the second message wins).
        std::map<std::string, std::optional<double>> ops;
        bool dup_key = false;
        for (auto& op : a.ops) {
            if (ops.count(op.key)) {
                set_result(entity, invalid("Duplicate quota key " + op.key + " not updating quota for this entity " +
                                           to_string(entity)));
                dup_key = true;
            } else {
                ops[op.key] = op.value;
            }
        }
        if (dup_key || find_result(entity)) {
            set_result(entity, invalid("Ignoring duplicate entity " + to_string(entity)));
            continue;
        }
        if (auto err = validate_entity(entity)) {
            set_result(entity, err);
            continue;
        }
        auto keys = keys_for(entity);
        auto cur_it = values_.find(entity);
        std::vector<meta::quota_change> mine;
        std::optional<quota_error> err;
        for (auto& [key, value] : ops) {
            bool has = cur_it != values_.end() && cur_it->second.count(key);
            if (!value) {
                if (has) mine.push_back({to_parts(entity), key, std::nullopt});
                continue;
            }
            if ((err = validate_value(keys, key, *value))) break;
            if (!has || cur_it->second.at(key) != *value) mine.push_back({to_parts(entity), key, *value});
        }
        set_result(entity, err);
        if (!err) changes.insert(changes.end(), mine.begin(), mine.end());
    }
    if (validate_only || changes.empty()) return results;
    if (auto st = store_.apply(changes); !st.ok()) return failure{st.error()};
    std::unique_lock lock(mu_);
    for (auto& c : changes) {
        quota_entity e(c.entity.begin(), c.entity.end());
        if (c.value) {
            auto& vals = values_[e];
            if (!vals.count(c.key)) ++key_uses_[c.key];
            vals[c.key] = *c.value;
        } else if (auto it = values_.find(e); it != values_.end()) {
            if (it->second.erase(c.key) && --key_uses_[c.key] == 0) key_uses_.erase(c.key);
            if (it->second.empty()) values_.erase(it);
        }
    }
    ++generation_;
    return results;
}

result<std::vector<quota_entry>, quota_error> quota_config::describe(const std::vector<quota_filter_component>& filter,
                                                                     bool strict) const {
    // ClientQuotasImage.describe
    std::map<std::string, std::optional<std::string>> exact;
    std::set<std::string> any;
    for (auto& c : filter) {
        if (c.entity_type.empty()) return failure{invalid("Invalid empty entity type.")};
        if (exact.count(c.entity_type) || any.count(c.entity_type))
            return failure{invalid("Entity type " + c.entity_type + " cannot appear more than once in the filter.")};
        if (c.entity_type != k_ip && c.entity_type != k_user && c.entity_type != k_client_id)
            return failure{quota_error{error_code::unsupported_version, "Unsupported entity type " + c.entity_type}};
        switch (c.match_type) {
            case 0:
                if (!c.match)
                    return failure{invalid("Request specified MATCH_TYPE_EXACT, but set match string to null.")};
                exact[c.entity_type] = c.match;
                break;
            case 1:
                if (c.match)
                    return failure{invalid("Request specified MATCH_TYPE_DEFAULT, but also specified a match string.")};
                exact[c.entity_type] = std::nullopt;
                break;
            case 2:
                if (c.match)
                    return failure{
                        invalid("Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.")};
                any.insert(c.entity_type);
                break;
            default: return failure{invalid("Unknown match type " + std::to_string(int(c.match_type)))};
        }
    }
    auto named = [&](const char* t) { return exact.count(t) || any.count(t); };
    if (named(k_ip) && (named(k_user) || named(k_client_id)))
        return failure{
            invalid("Invalid entity filter component combination. IP filter component should not be used "
                    "with user or clientId filter component.")};
    std::shared_lock lock(mu_);
    std::vector<quota_entry> out;
    for (auto& [entity, values] : values_) {
        if (strict && entity.size() != exact.size() + any.size()) continue;
        bool match = true;
        for (auto& [type, name] : exact) {
            auto it = entity.find(type);
            match = match && it != entity.end() && it->second == name;
        }
        for (auto& type : any) match = match && entity.count(type);
        if (match) out.push_back({entity, values});
    }
    return out;
}

std::optional<double> quota_config::find(const quota_entity& e, const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = values_.find(e);
    if (it == values_.end()) return std::nullopt;
    auto k = it->second.find(key);
    if (k == it->second.end()) return std::nullopt;
    return k->second;
}

bool quota_config::has_key(std::string_view key) const {
    std::shared_lock lock(mu_);
    return key_uses_.find(key) != key_uses_.end();
}

uint64_t quota_config::generation() const {
    std::shared_lock lock(mu_);
    return generation_;
}

}  // namespace ketch::security
