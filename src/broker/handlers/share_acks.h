// The acknowledgements of ShareFetch and ShareAcknowledge (their
// AcknowledgementBatches have the same fields): each partition's batches go
// to the share coordinator, then its new state is written to shares.db
// (one fsync for the request, shared with concurrent ones: the coordinator's
// group commit) before the request is answered. RENEW (4) exists from v2 on
// (KIP-1222) and only in a request with IsRenewAck: otherwise it makes the
// partition INVALID_REQUEST (KafkaApis.validateAcknowledgementBatches).
//
// ShareAcknowledge applies and writes on broker_context::run_blocking
// (acknowledge_all). ShareFetch applies on run_blocking too (apply_acks:
// memory, but a partition's lease may be taken first), starts the write on run_blocking (start_sync), reads and
// acquires meanwhile, and waits for the write before it answers (pending_sync::wait).
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/async.h"
#include "broker/blocking.h"
#include "share/coordinator.h"

namespace ketch::broker {

struct share_ack_result {
    share::topic_partition tp;
    error_code error = error_code::none;
    std::optional<std::string> message;  // where Kafka sends one
    uint64_t hold = 0;                   // the hold it was applied under (coordinator::hold_of)
};
using share_ack_results = std::vector<share_ack_result>;

// After the write: an acknowledgement whose partition's state was lost
// meanwhile (cluster mode: the write refused or failed, the lease taken
// again) is not durable and is answered NOT_LEADER_OR_FOLLOWER; its records
// stay where the stored state has them (delivered again). True if any changed.
inline bool confirm_acks(share::coordinator& shares, share_ack_results& acks) {
    bool changed = false;
    for (auto& r : acks)
        if (r.error == error_code::none && shares.hold_of(r.tp) != r.hold) {
            r.error = error_code::not_leader_or_follower;
            r.message.reset();
            changed = true;
        }
    return changed;
}

// Applies every partition's acknowledgements in memory (nothing written yet).
template <class Topics>
share_ack_results apply_acks(share::coordinator& shares, const std::string& group, const std::string& member,
                             const Topics& topics, bool renew_ok) {
    share_ack_results out;
    for (auto& topic : topics)
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
            try {  // also runs on the blocking pool: nothing may escape
                std::string why;
                // Cluster mode: only the partition's leader, holding its lease.
                if (!shares.hold(tp)) {
                    r.error = error_code::not_leader_or_follower;
                    out.push_back(std::move(r));
                    continue;
                }
                r.hold = shares.hold_of(tp);
                if (!renew || renew_ok) r.error = shares.acknowledge_unsynced(group, member, tp, batches, &why);
                if (!why.empty()) r.message = std::move(why);
            } catch (const std::exception&) {
                r.error = error_code::unknown_server_error;
            }
            out.push_back(std::move(r));
        }
    return out;
}

// Applies and writes, off the reactor.
template <class Topics>
boost::asio::awaitable<share_ack_results> acknowledge_all(request_context& ctx, const std::string& group,
                                                          const std::string& member, const Topics& topics,
                                                          bool renew_ok) {
    auto* shares = ctx.broker.shares;
    const Topics* t = &topics;
    const std::string* g = &group;
    const std::string* m = &member;
    co_return co_await blocking_call<share_ack_results>(ctx.broker, [shares, t, g, m, renew_ok] {
        auto out = apply_acks(*shares, *g, *m, *t, renew_ok);
        try {
            shares->sync();
        } catch (const std::exception&) {  // a failed write keeps the previous state (at least once)
        }
        confirm_acks(*shares, out);
        return out;
    });
}

// The share coordinator's write of everything changed so far, running on the
// blocking pool while the request goes on; wait() resumes the request once
// it is done.
class pending_sync {
public:
    static std::shared_ptr<pending_sync> start(broker_context& b, share::coordinator& shares) {
        auto p = std::make_shared<pending_sync>();
        auto job = [p, &shares] {
            try {
                shares.sync();
            } catch (const std::exception&) {
            }
            p->complete();
        };
        if (b.run_blocking)
            b.run_blocking(std::move(job));
        else
            job();
        return p;
    }

    // The caller keeps its shared_ptr across the wait. The callback captures
    // a plain pointer: g++ 12 mishandles temporaries that own memory in a
    // co_await operand (broker/blocking.h).
    boost::asio::awaitable<void> wait() {
        pending_sync* self = this;
        (void)co_await on_callback<bool>([self](std::function<void(bool)> done) {
            {
                std::lock_guard l(self->mu_);
                if (!self->done_) {
                    self->waiter_ = std::move(done);
                    return;
                }
            }
            done(true);
        });
    }

private:
    void complete() {
        std::function<void(bool)> w;
        {
            std::lock_guard l(mu_);
            done_ = true;
            w = std::move(waiter_);
        }
        if (w) w(true);
    }

    std::mutex mu_;
    bool done_ = false;
    std::function<void(bool)> waiter_;
};

}  // namespace ketch::broker
