#include "app/cluster_service.h"

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "base/uuid.h"
#include "objstore/s3_client.h"

namespace ketch::app {

namespace {

// The object store answers and takes writes: HEAD bucket, a probe written
// with If-None-Match: * (the conditional PUT data objects rely on), deleted.
void check_object_store(const options& opt) {
    auto loc = objstore::parse_s3_url(opt.object_store);
    if (!loc.ok()) throw std::runtime_error("--object-store: " + loc.error());
    auto creds = objstore::credentials_from_environment();
    if (creds.access_key_id.empty() || creds.secret_access_key.empty())
        throw std::runtime_error("--object-store: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
    objstore::s3_client s3(*loc, creds);
    auto fail = [&](const char* step, const objstore::s3_error& e) {
        return std::runtime_error("object store " + loc->host_header() + " bucket " + loc->bucket + ": " + step + ": " +
                                  e.describe());
    };
    if (auto r = s3.head_bucket(); !r.ok()) throw fail("HEAD bucket", r.error());
    std::string probe = "_ketch/probe/node-" + std::to_string(opt.node_id) + "-" + uuid::random().to_base64();
    if (auto r = s3.put_object(probe, "ketch start-up probe", true); !r.ok()) throw fail("PUT probe", r.error());
    if (auto r = s3.delete_object(probe); !r.ok()) throw fail("DELETE probe", r.error());
    spdlog::info("cluster: object store {} bucket {} answers", loc->host_header(), loc->bucket);
}

cluster::broker_info self_info(const options& opt, const std::vector<listener_endpoint>& endpoints) {
    cluster::broker_info self{opt.node_id, std::nullopt, {}};
    if (!opt.rack.empty()) self.rack = opt.rack;
    for (auto& e : endpoints) self.endpoints.push_back({e.name, e.advertised_host, e.advertised_port});
    return self;
}

}  // namespace

cluster_service cluster_service::start(const options& opt, broker::broker_context& ctx,
                                       const std::vector<listener_endpoint>& endpoints) {
    cluster_service out;
    if (opt.cluster.empty()) return out;
    auto inter_broker = inter_broker_config_of(opt, endpoints);  // refused before joining
    check_object_store(opt);
    cluster::membership_config mc{opt.cluster, self_info(opt, endpoints),
                                  std::chrono::milliseconds(opt.cluster_heartbeat_ms),
                                  std::chrono::milliseconds(opt.cluster_session_timeout_ms), ctx.config.cluster_id};
    auto m = cluster::membership::join(std::move(mc));
    if (!m.ok()) throw std::runtime_error("--cluster: " + m.error());
    out.membership = std::move(*m);
    ctx.config.cluster_id = out.membership->cluster_id();
    ctx.cluster = out.membership.get();
    if (inter_broker.listener) {  // ConsolePeer's callers (broker/console_peer.h)
        ctx.console_peer_listener = *inter_broker.listener;
        if (inter_broker.client.uses_sasl()) ctx.console_peer_principal = "User:" + inter_broker.client.sasl_username;
    }
    out.console_clients = std::make_unique<inter_broker_clients>(*out.membership, inter_broker, k_console_peer_timeout);
    out.remote = std::make_unique<remote_txns>(ctx, *out.membership, std::move(inter_broker));
    return out;
}

}  // namespace ketch::app
