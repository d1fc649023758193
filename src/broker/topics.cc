#include "broker/topics.h"

#include "broker/tenant_topics.h"

#include <spdlog/spdlog.h>

#include "broker/offsets_topic.h"
#include "meta/topic_name.h"
#include "partition/service.h"

namespace ketch::broker {

error_code to_kafka(meta::errc e) {
    switch (e) {
        case meta::errc::invalid_topic: return error_code::invalid_topic_exception;
        case meta::errc::topic_already_exists: return error_code::topic_already_exists;
        case meta::errc::unknown_topic_or_partition: return error_code::unknown_topic_or_partition;
        case meta::errc::unknown_topic_id: return error_code::unknown_topic_id;
        case meta::errc::invalid_config: return error_code::invalid_config;
        case meta::errc::invalid_partitions: return error_code::invalid_partitions;
        case meta::errc::invalid_replication_factor: return error_code::invalid_replication_factor;
        case meta::errc::invalid_request: return error_code::invalid_request;
        case meta::errc::storage_error: return error_code::kafka_storage_error;
    }
    return error_code::unknown_server_error;
}

std::vector<result<meta::topic, meta::error>> create_topics(broker_context& b,
                                                            std::span<const meta::create_topic_args> args,
                                                            bool validate_only) {
    // Partition logs are created on first use (produce / fetch), so a topic
    // costs nothing on disk until it holds data.
    auto out = b.topics.create_topics(args, validate_only);
    for (auto& r : out)
        if (r.ok() && !validate_only)
            spdlog::info("created topic {} ({} partitions, id {})", r->name, r->partition_count, r->id.to_base64());
    return out;
}

result<meta::topic, meta::error> auto_create_topic(broker_context& b, const std::string& name) {
    meta::create_topic_args a;
    a.name = name;
    a.partition_count = b.config.default_partitions;
    a.replication_factor = b.config.default_replication_factor;
    // --tenancy: the owning tenant's max_topics / max_partitions; the client
    // is answered as for a topic it may not auto-create.
    if (auto why = tenant_refuses_new_topic(b, name, a.partition_count))
        return failure(meta::error{meta::errc::unknown_topic_or_partition, *why});
    auto r = b.topics.create_topic(a);
    if (r.ok()) spdlog::info("auto-created topic {} ({} partitions)", name, a.partition_count);
    return r;
}

result<meta::topic, meta::error> create_offsets_topic(broker_context& b) {
    if (auto t = b.topics.by_name(std::string(meta::consumer_offsets_topic)))
        return failure(meta::error{meta::errc::topic_already_exists, "Topic '__consumer_offsets' already exists."});
    b.consumer_offsets->ensure();
    if (auto t = b.topics.by_name(std::string(meta::consumer_offsets_topic))) return *t;
    return failure(meta::error{meta::errc::storage_error, "cannot create __consumer_offsets"});
}

result<meta::topic, meta::error> delete_topic(broker_context& b, const meta::topic& t) {
    auto r = b.topics.delete_by_id(t.id);
    if (!r.ok()) return r;
    b.partitions.remove_topic(t);
    spdlog::info("deleted topic {}", t.name);
    return r;
}

void apply_topic_settings(broker_context& b, const meta::topic& t) { b.partitions.apply_topic_settings(t); }

}  // namespace ketch::broker
