// Settings of the broker as clients see it (flags / ketch.toml resolve into this).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ketch::broker {

struct broker_config {
    int32_t node_id = 1;
    std::string cluster_id;  // 22-char base64 uuid, fixed for a data directory
    std::string advertised_host = "127.0.0.1";
    int32_t advertised_port = 9092;
    std::string listener_name = "PLAINTEXT";
    // Advertised host:port per listener name: Metadata, DescribeCluster and
    // FindCoordinator answer the address of the listener a request came in
    // on, as Kafka does. Empty: advertised_host/port for every listener.
    struct endpoint {
        std::string host;
        int32_t port = 0;
    };
    std::map<std::string, endpoint> advertised;
    endpoint advertised_for(const std::string& listener) const {
        auto it = advertised.find(listener);
        return it != advertised.end() ? it->second : endpoint{advertised_host, advertised_port};
    }
    bool auto_create_topics = true;                 // auto.create.topics.enable
    int32_t default_partitions = 1;                 // num.partitions
    int16_t default_replication_factor = 1;         // default.replication.factor
    int32_t max_request_bytes = 100 * 1024 * 1024;  // socket.request.max.bytes
    // The Kafka broker properties ketch's own settings stand for (node.id,
    // listeners, log.dirs, num.partitions, ...), reported by DescribeConfigs
    // as STATIC_BROKER_CONFIG (app/ fills them in).
    std::map<std::string, std::string, std::less<>> static_properties;
};

}  // namespace ketch::broker
