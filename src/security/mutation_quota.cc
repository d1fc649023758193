#include "security/mutation_quota.h"

#include <algorithm>

namespace ketch::security {

bool mutation_quota::bounded() const {
    return qm_ && qm_->limit(quota_type::controller_mutation, user_, client_id_).has_value();
}

bool mutation_quota::charge(int32_t partitions, int64_t now_ms) {
    if (!qm_) return true;
    auto v = qm_->record_mutation(user_, client_id_, double(partitions), strict_, now_ms);
    // updateThrottleTime runs only on a QuotaViolationException: a refusal
    // (strict) or a debt after recording (permissive).
    if (!v.allowed || v.throttle_ms > 0) {
        last_throttle_ms_ = v.throttle_ms;
        last_recorded_ms_ = now_ms;
    }
    return v.allowed;
}

int32_t mutation_quota::throttle_ms(int64_t now_ms) const {
    return int32_t(std::max<int64_t>(0, last_throttle_ms_ - (now_ms - last_recorded_ms_)));
}

}  // namespace ketch::security
