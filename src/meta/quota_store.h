// meta::quota_store: client quota settings (Kafka's AlterClientQuotas),
// kept durably. An entity is a set of (entity type, name) parts, a null name
// meaning the type's default entity (Kafka's ClientQuotaEntity); what the
// types and keys mean is the security module's business, not the store's.
//
// Contract: a call that returns ok is durable; `apply` is atomic (every
// change or none); calls may come from any thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "meta/store.h"

namespace ketch::meta {

// Sorted by type, each type at most once.
using quota_entity_parts = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct quota_value {
    quota_entity_parts entity;
    std::string key;
    double value = 0;
};

struct quota_change {
    quota_entity_parts entity;
    std::string key;
    std::optional<double> value;  // nullopt: remove the key
};

class quota_store {
public:
    virtual ~quota_store() = default;
    // Every stored value, in no particular order.
    virtual result<std::vector<quota_value>, store_error> load() = 0;
    virtual status<store_error> apply(const std::vector<quota_change>& changes) = 0;
};

// Keeps nothing across restarts (tests).
class memory_quota_store final : public quota_store {
public:
    result<std::vector<quota_value>, store_error> load() override { return values_; }
    status<store_error> apply(const std::vector<quota_change>& changes) override;

private:
    std::vector<quota_value> values_;
};

}  // namespace ketch::meta
