// Retries of object store calls (docs/design/cluster.md, failure cases):
// a call that fails with a retriable error (no answer, 429, 5xx) is tried
// again after an exponential backoff, up to a number of attempts; any other
// error, or the last attempt's, is the answer. The sleep is injected so that
// tests need no clock.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>

#include "objstore/s3_client.h"

namespace ketch::objstore {

struct retry_policy {
    int attempts = 5;
    std::chrono::milliseconds first_backoff{50};
    std::chrono::milliseconds max_backoff{2000};
};

using sleeper = std::function<void(std::chrono::milliseconds)>;

// R: result<T, s3_error> or status<s3_error>.
template <class Op>
auto with_retries(const retry_policy& p, const sleeper& sleep, Op&& op) -> decltype(op()) {
    auto backoff = p.first_backoff;
    for (int attempt = 1;; ++attempt) {
        auto r = op();
        if (r.ok() || !r.error().retriable() || attempt >= p.attempts) return r;
        sleep(backoff);
        backoff = std::min(backoff * 2, p.max_backoff);
    }
}

}  // namespace ketch::objstore
