// The acknowledgements of ShareFetch and ShareAcknowledge (their
// AcknowledgementBatches have the same fields): each partition's batches go
// to the share coordinator, which writes the new state to shares.db; so the
// work runs on broker_context::run_blocking. RENEW (4) exists from v2 on
// (KIP-1222): in a v1 request it makes the partition INVALID_REQUEST.
#pragma once

#include <exception>
#include <utility>
#include <vector>

#include "broker/blocking.h"
#include "share/coordinator.h"

namespace ketch::broker {

using share_ack_results = std::vector<std::pair<share::topic_partition, error_code>>;

template <class Topics>
boost::asio::awaitable<share_ack_results> acknowledge_all(request_context& ctx, const std::string& group,
                                                          const std::string& member, const Topics& topics,
                                                          bool renew_ok) {
    auto* shares = ctx.broker.shares;
    const Topics* t = &topics;
    const std::string* g = &group;
    const std::string* m = &member;
    co_return co_await blocking_call<share_ack_results>(ctx.broker, [shares, t, g, m, renew_ok] {
        share_ack_results out;
        for (auto& topic : *t)
            for (auto& p : topic.partitions) {
                if (p.acknowledgement_batches.empty()) continue;
                std::vector<share::ack_batch> batches;
                bool renew = false;
                for (auto& b : p.acknowledgement_batches) {
                    batches.push_back({b.first_offset, b.last_offset, b.acknowledge_types});
                    for (auto type : b.acknowledge_types) renew |= type == int8_t(share::ack_type::renew);
                }
                share::topic_partition tp{topic.topic_id, p.partition_index};
                error_code e = error_code::invalid_request;
                try {  // on the blocking pool: nothing may escape
                    if (!renew || renew_ok) e = shares->acknowledge(*g, *m, tp, batches);
                } catch (const std::exception&) {
                    e = error_code::unknown_server_error;
                }
                out.emplace_back(tp, e);
            }
        return out;
    });
}

}  // namespace ketch::broker
