// Declarations of every API handler (one file per API key: NN_<api>.cc).
#pragma once

#include "broker/handler.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/metadata.h"

namespace ketch::broker {

awaitable<kafka::api_versions_response> handle_api_versions(request_context&, kafka::api_versions_request&);
// ApiVersions at a version ketch does not serve: v0-shaped UNSUPPORTED_VERSION (KIP-511).
net::handler_result unsupported_api_versions(request_context&);

awaitable<kafka::metadata_response> handle_metadata(request_context&, kafka::metadata_request&);
awaitable<kafka::create_topics_response> handle_create_topics(request_context&, kafka::create_topics_request&);
awaitable<kafka::delete_topics_response> handle_delete_topics(request_context&, kafka::delete_topics_request&);
awaitable<kafka::describe_cluster_response> handle_describe_cluster(request_context&, kafka::describe_cluster_request&);
awaitable<kafka::find_coordinator_response> handle_find_coordinator(request_context&, kafka::find_coordinator_request&);

}  // namespace ketch::broker
