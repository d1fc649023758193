// UpdateFeatures v0-2. v1: upgrade_type, validate_only (KIP-778). v2: the
// per-feature results are gone; only the top-level error remains (KIP-1022).
// Behaviour: ControllerApis.updateFeatures, FeatureControlManager.updateFeatures
// as recorded from a one-node Kafka 4.3.1 (adminapis updatefeatures-*): the
// first bad update fails the whole request with INVALID_UPDATE_VERSION.
// ketch's levels are fixed (the features of 18_api_versions.cc, kept in step
// here): a level equal to the finalized one is a no-op success, a valid
// change is accepted with validate_only and otherwise refused, since ketch
// has no behaviour to switch.
#include <optional>
#include <string>

#include "broker/features.h"
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

namespace {

constexpr int8_t k_upgrade = 1;

// Kafka's message for a bad update; nullopt when the update is valid.
std::optional<std::string> check(const update_features_request::feature_update_key& u, int32_t node,
                                 int16_t api_version, bool& changes) {
    const feature_level* f = nullptr;
    for (auto& s : k_features)
        if (s.name == u.feature) f = &s;
    const std::string head = "Invalid update version " + std::to_string(u.max_version_level) + " for feature " +
                             u.feature + ". Local controller " + std::to_string(node);
    if (!f) return head + " does not support this feature.";
    if (u.max_version_level == f->finalized) return std::nullopt;
    if (u.max_version_level < f->min || u.max_version_level > f->max)
        return head + " only supports versions " + std::to_string(f->min) + "-" + std::to_string(f->max);
    const int8_t type = api_version >= 1 ? u.upgrade_type : (u.allow_downgrade ? 2 : k_upgrade);
    if (u.max_version_level < f->finalized) {
        if (type == k_upgrade)
            return head.substr(0, head.find(". Local controller")) +
                   ". Can't downgrade the version of this feature without setting the upgrade type to either safe "
                   "or unsafe downgrade.";
        if (u.feature == "metadata.version")
            return "Unsupported metadata.version downgrade from " + std::to_string(f->finalized) + " to " +
                   std::to_string(u.max_version_level) +
                   ". Refusing to perform the requested downgrade because it might delete metadata information.";
    }
    changes = true;
    return std::nullopt;
}

}  // namespace

awaitable<update_features_response> handle_update_features(request_context& ctx, update_features_request& req) {
    update_features_response resp;
    // ControllerApis.handleUpdateFeatures: ALTER on the cluster, else the top-level error only.
    if (!ctx.authorize_cluster(security::acl_operation::alter)) {
        resp.error_code = code(error_code::cluster_authorization_failed);
        resp.error_message = std::string(error_message(error_code::cluster_authorization_failed));
        co_return resp;
    }
    resp.error_message = std::nullopt;
    bool changes = false;
    for (auto& u : req.feature_updates) {
        if (auto bad = check(u, ctx.broker.config.node_id, ctx.api_version, changes)) {
            resp.error_code = code(error_code::invalid_update_version);
            resp.error_message = "The update failed for all features since the following feature had an error: " + *bad;
            break;
        }
    }
    if (resp.error_code == 0 && changes && !req.validate_only) {
        resp.error_code = code(error_code::feature_update_failed);
        resp.error_message = "ketch's feature levels are fixed: it has no behaviour to switch by a feature level";
    }
    // v0-1: one result per feature on success (message "NONE", as recorded), none on failure.
    if (ctx.api_version < 2 && resp.error_code == 0)
        for (auto& u : req.feature_updates) {
            auto& r = resp.results.emplace_back();
            r.feature = u.feature;
            r.error_message = "NONE";
        }
    co_return resp;
}

}  // namespace ketch::broker
