// The acknowledgements of ShareFetch and ShareAcknowledge (their
// AcknowledgementBatches have the same fields): each partition's batches go
// to the share coordinator, which writes the new state to shares.db; so the
// work runs on broker_context::run_blocking. RENEW (4) exists from v2 on
// (KIP-1222) and only in a request with IsRenewAck: otherwise it makes the
// partition INVALID_REQUEST (KafkaApis.validateAcknowledgementBatches).
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/blocking.h"
#include "share/coordinator.h"

namespace ketch::broker {

struct share_ack_result {
    share::topic_partition tp;
    error_code error = error_code::none;
    std::optional<std::string> message;  // where Kafka sends one
};
using share_ack_results = std::vector<share_ack_result>;

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
                share_ack_result r{tp, error_code::invalid_request, std::nullopt};
                try {  // on the blocking pool: nothing may escape
                    std::string why;
                    if (!renew || renew_ok) r.error = shares->acknowledge(*g, *m, tp, batches, &why);
                    if (!why.empty()) r.message = std::move(why);
                } catch (const std::exception&) {
                    r.error = error_code::unknown_server_error;
                }
                out.push_back(std::move(r));
            }
        return out;
    });
}

}  // namespace ketch::broker
