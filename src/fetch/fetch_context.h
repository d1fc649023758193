// What one Fetch request is to the session cache: Apache Kafka 4.3.1
// server/.../FetchManager.java (newContext) and FetchContext.java.
//
//   epoch 0 (INITIAL)   full fetch; any session the request names is closed; a
//                       new session is created from the answer if the cache
//                       has room (the answer carries its id, else 0)
//   epoch -1 (FINAL)    full fetch without a session (sessionless; Fetch v4-6
//                       always); any session named is closed
//   epoch > 0           incremental: the session's partitions with the
//                       request's added/updated and its forgotten removed; the
//                       answer leaves out partitions with nothing new. An
//                       unknown id is FETCH_SESSION_ID_NOT_FOUND, another epoch
//                       than the session's INVALID_FETCH_SESSION_EPOCH, a
//                       version on the other side of v13 than the session's
//                       FETCH_SESSION_TOPIC_ID_ERROR; a session left empty is
//                       closed and the fetch answered sessionless.
//
// The handler reads `partitions()`, then asks `respond()` which of its
// answers to send (and, for a full fetch, for the session id).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "fetch/session_cache.h"

namespace ketch::fetch {

struct context_request {
    int16_t version = 0;
    int32_t session_id = k_invalid_session_id;
    int32_t epoch = k_final_epoch;
    bool follower = false;                    // a follower's session is privileged
    std::vector<fetch_partition> fetch_data;  // the request's, in order, one per partition
    std::vector<partition_key> forgotten;
};

enum class context_kind { session_error, sessionless, full, incremental };

// The answer's top level, and which partitions it carries.
struct context_answer {
    error_code error = error_code::none;
    int32_t session_id = k_invalid_session_id;
    std::vector<bool> include;  // one per outcome given to respond()
};

class fetch_context {
public:
    context_kind kind() const { return kind_; }
    error_code error() const { return error_; }  // session_error's
    int32_t session_id() const;

    // The partitions to read, in order (FetchContext.foreachPartition). An
    // incremental fetch's come from its session, names of ids resolved by
    // `name_of` (empty: still unknown).
    std::vector<fetch_partition> partitions(const std::function<std::string(const uuid&)>& name_of);

    // FetchContext.updateAndGenerateResponseData (`update`) or, for the size a
    // quota counts, the same selection without changing anything
    // (getResponseSize). `outcomes[i]` is the answer of partition `keys[i]`.
    context_answer respond(const std::vector<partition_key>& keys, const std::vector<partition_outcome>& outcomes,
                           bool update);
    // getThrottledResponse: no partitions; an incremental fetch keeps its session id.
    context_answer throttled();

private:
    friend fetch_context new_context(session_cache& cache, context_request req);
    context_kind kind_ = context_kind::sessionless;
    error_code error_ = error_code::none;
    session_cache* cache_ = nullptr;
    context_request req_;
    cache_shard* shard_ = nullptr;
    std::shared_ptr<session> session_;  // incremental
};

// FetchManager.newContext.
fetch_context new_context(session_cache& cache, context_request req);

}  // namespace ketch::fetch
