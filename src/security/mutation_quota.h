// security::mutation_quota: the controller_mutation_rate of one request, as
// Kafka's ControllerMutationQuota (core: ControllerMutationQuotaManager).
//
// CreateTopics, CreatePartitions and DeleteTopics open one per request and
// charge it once per topic that passed every other check, with the number of
// partitions created, added or deleted (ReplicationControlManager
// applyPartitionChangeQuota). Strict (CreateTopics v6+, CreatePartitions v3+,
// DeleteTopics v5+): a topic charged while the bucket is in debt is refused
// (THROTTLING_QUOTA_EXCEEDED) and nothing is recorded; a topic that takes
// the bucket into debt is accepted and does not throttle. Permissive (older
// versions): every topic is accepted and recorded; a debt throttles.
// throttle_ms() is the last throttle time less the time since it was taken
// (AbstractControllerMutationQuota.throttleTime).
//
// Not thread-safe (one request); the quota_manager it charges is.
#pragma once

#include <cstdint>
#include <string>

#include "security/quota_manager.h"

namespace ketch::security {

class mutation_quota {
public:
    // `qm` null: no quotas at all (every charge accepted, never throttled).
    mutation_quota(quota_manager* qm, std::string user, std::string client_id, bool strict)
        : qm_(qm), user_(std::move(user)), client_id_(std::move(client_id)), strict_(strict) {}

    // True when a controller_mutation_rate applies to this principal.
    bool bounded() const;
    bool strict() const { return strict_; }

    // Charges `partitions`; false: refused (strict only).
    bool charge(int32_t partitions, int64_t now_ms);

    // The throttle time to answer with at `now_ms` (0 when never throttled).
    int32_t throttle_ms(int64_t now_ms) const;

private:
    quota_manager* qm_;
    std::string user_, client_id_;
    bool strict_;
    int64_t last_throttle_ms_ = 0;
    int64_t last_recorded_ms_ = 0;
};

}  // namespace ketch::security
