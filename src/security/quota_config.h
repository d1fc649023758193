// security::quota_config: the client quota settings — Kafka's entity model
// and the AlterClientQuotas / DescribeClientQuotas rules of Kafka 4.3.1
// (metadata: ClientQuotaControlManager validates and applies alterations,
// ClientQuotasImage.describe answers filters).
//
// An entity maps entity types ("user", "client-id", "ip") to a name, or to
// nullopt for the type's default entity. Keys: producer_byte_rate and
// consumer_byte_rate (whole numbers), request_percentage and
// controller_mutation_rate (doubles) for user / client-id entities;
// connection_creation_rate (whole) for ip entities.
//
// Thread-safe: alterations are serialised and persisted through the
// meta::quota_store before they become visible; lookups take a shared lock.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/error_code.h"
#include "base/result.h"
#include "meta/quota_store.h"

namespace ketch::security {

using quota_entity = std::map<std::string, std::optional<std::string>>;

inline constexpr const char* k_user = "user";
inline constexpr const char* k_client_id = "client-id";
inline constexpr const char* k_ip = "ip";

inline constexpr const char* k_producer_byte_rate = "producer_byte_rate";
inline constexpr const char* k_consumer_byte_rate = "consumer_byte_rate";
inline constexpr const char* k_request_percentage = "request_percentage";
inline constexpr const char* k_controller_mutation_rate = "controller_mutation_rate";
inline constexpr const char* k_connection_creation_rate = "connection_creation_rate";

// Kafka's ClientQuotaEntity.toString: "ClientQuotaEntity(entries={user=alice})".
std::string to_string(const quota_entity& e);

struct quota_error {
    error_code code = error_code::none;
    std::string message;
};

// One entry of an AlterClientQuotas request, as sent.
struct quota_alteration {
    // (type, name) in request order; a type named twice keeps the last name
    // (the request's entity becomes a map, as Kafka's does).
    std::vector<std::pair<std::string, std::optional<std::string>>> entity;
    struct op {
        std::string key;
        std::optional<double> value;  // nullopt: remove
    };
    std::vector<op> ops;
};

struct quota_alter_result {
    quota_entity entity;
    error_code code = error_code::none;
    std::optional<std::string> message;  // set when code != none
};

// One DescribeClientQuotas filter component.
struct quota_filter_component {
    std::string entity_type;
    int8_t match_type = 0;  // 0 exact, 1 default, 2 any specified name
    std::optional<std::string> match;
};

struct quota_entry {
    quota_entity entity;
    std::map<std::string, double> values;
};

class quota_config {
public:
    explicit quota_config(meta::quota_store& store) : store_(store) {}
    // Replaces the settings held with the store's (at start; cluster mode:
    // another broker changed them). When the store cannot be read they stay.
    status<meta::store_error> load();

    // One result per distinct entity, in order of first appearance. With
    // validate_only nothing changes. A store failure fails the whole call.
    result<std::vector<quota_alter_result>, meta::store_error> alter(const std::vector<quota_alteration>& entries,
                                                                     bool validate_only);
    // The entities matching the filter, or the filter's error.
    result<std::vector<quota_entry>, quota_error> describe(const std::vector<quota_filter_component>& filter,
                                                           bool strict) const;

    // The value of `key` set on exactly this entity.
    std::optional<double> find(const quota_entity& e, const std::string& key) const;
    // Whether any entity sets `key` (the enforcement's fast path: nothing to
    // resolve while no quota of that kind exists).
    bool has_key(std::string_view key) const;
    // Bumped on every change (lets callers cache resolutions).
    uint64_t generation() const;

private:
    meta::quota_store& store_;
    // Serialises the changes and the reloads, held across their store I/O;
    // whoever changes the fields below holds it, and mu_ unique (only to swap
    // what is in memory: a lookup, on a reactor, never waits for the store).
    // Taken before mu_.
    std::mutex change_mu_;
    mutable std::shared_mutex mu_;
    std::map<quota_entity, std::map<std::string, double>> values_;
    std::map<std::string, int, std::less<>> key_uses_;  // key -> entities setting it
    uint64_t generation_ = 0;
};

}  // namespace ketch::security
