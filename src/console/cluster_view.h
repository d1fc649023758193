// Cluster mode: what a console page asks of the other brokers
// (docs/cluster.md "The console"): the groups they coordinate, and their
// local pages (console/peer_fanout.h). One per HTTP request: a broker that
// was not reached in time is not asked again in it, and the page names it in
// its "unreached_brokers" field instead of failing. On a single node (no
// ctx.peers) every request is its own broker's.
//
// A Kafka request to another broker goes as this broker's inter-broker
// principal, so a request about a group is first asked of this broker as the
// logged-in principal: it authorizes it (Kafka's handlers check the ACLs
// before the coordinator) and answers NOT_COORDINATOR; only then is the
// coordinator that FindCoordinator names asked. A tenant's user gets no
// such forwarding (the other broker would answer in internal names): what
// it sees of another broker is that broker's page rendered for it
// (ConsolePeer), in its own names.
#pragma once

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "console/context.h"
#include "console/reply.h"
#include "protocol/wire.h"

namespace ketch::console {

class cluster_view {
public:
    // this_broker: the view of a local page another broker's console asks
    // for (console/local_pages.h), which asks no broker in turn.
    enum class reach { cluster, this_broker };
    cluster_view(const context& ctx, std::string principal, reach r = reach::cluster);

    const context& ctx() const { return ctx_; }
    const std::string& principal() const { return who_; }
    // Whether the other brokers' pages are asked (cluster mode).
    bool clustered() const { return clustered_; }
    // A tenant's user (--tenancy): the broker answers it in its tenant's names.
    bool scoped() const { return scoped_; }
    // Whether Kafka requests go on to other brokers as the inter-broker
    // principal (cluster mode, not for a tenant's user).
    bool forwards() const { return clustered_ && !scoped_; }
    // The live brokers other than this one (none on a single node).
    std::vector<int32_t> others() const;

    // `req` to the broker `node`; nullopt when it was not reached (recorded).
    template <class Req, class Resp>
    std::optional<Resp> ask(int32_t node, const Req& req, int16_t cap = INT16_MAX) {
        if (unreached_.count(node)) return std::nullopt;
        try {
            auto [v, body] =
                ctx_.peers.call(node, Req::api_key, std::min<int16_t>(cap, Req::max_version), [&req](int16_t version) {
                    kafka::writer w;
                    req.encode(w, version);
                    return w.take_bytes();
                });
            kafka::reader r(body.data(), body.size());
            Resp resp;
            resp.decode(r, v);
            return resp;
        } catch (const std::exception& e) {
            not_reached(node, e.what());
            return std::nullopt;
        }
    }

    // A request about `group`: its own broker's answer as the principal, or,
    // when `elsewhere(answer)` (NOT_COORDINATOR) in cluster mode, the group's
    // coordinator's. `by` (if given) is set to the node that answered.
    // Throws api_error 503 naming the coordinator when it is not reached.
    template <class Req, class Resp, class Elsewhere>
    Resp group_call(const std::string& group, const Req& req, Elsewhere elsewhere, int16_t cap = INT16_MAX,
                    int32_t* by = nullptr) {
        auto local = ctx_.kafka->call<Req, Resp>(req, who_, std::chrono::seconds(30), cap);
        if (by) *by = ctx_.node_id;
        if (!clustered() || !elsewhere(local)) return local;
        const int32_t node = coordinator_of(group);
        if (node < 0 || node == ctx_.node_id) return local;
        if (!forwards()) throw_not_forwarded(group, node);
        auto remote = ask<Req, Resp>(node, req, cap);
        if (!remote) throw_unreached(group, node);
        if (by) *by = node;
        return std::move(*remote);
    }

    // The coordinator of `key` (key_type 0: a group, 1: a transactional id)
    // as this broker's FindCoordinator names it to the principal; -1 when it
    // names none.
    int32_t coordinator_of(const std::string& key, int8_t key_type = 0);

    // Records that `node` was not reached (or answered an error), and why.
    void not_reached(int32_t node, const std::string& why);
    // api_error 503: `group`'s coordinator `node` was not reached.
    [[noreturn]] void throw_unreached(const std::string& group, int32_t node) const;
    // api_error 501: a tenant's user's request about `group` would go to its
    // coordinator `node` as the inter-broker principal, which it does not.
    [[noreturn]] void throw_not_forwarded(const std::string& group, int32_t node) const;
    // [{"node_id": n, "error": "..."}], the brokers not reached, by node id.
    json unreached() const;

private:
    const context& ctx_;
    const std::string who_;
    const bool scoped_;
    const bool clustered_;
    std::map<int32_t, std::string> unreached_;
};

inline constexpr int16_t k_not_coordinator = 16;

}  // namespace ketch::console
