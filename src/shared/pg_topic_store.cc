#include "shared/pg_topic_store.h"

namespace ketch::shared {

namespace {

status<cluster::pg_error> insert_configs(cluster::pg_connection& c, const std::string& id,
                                         const meta::config_map& configs) {
    for (auto& [k, v] : configs) {
        auto r = c.exec("INSERT INTO ketch_topic_configs (topic_id, name, value) VALUES ($1, $2, $3)", {id, k, v});
        if (!r.ok()) return failure{r.error()};
    }
    return ok_v;
}

}  // namespace

result<std::vector<meta::topic>, meta::store_error> pg_topic_store::load_topics() { return topics_where("", {}); }

result<std::vector<meta::topic>, meta::store_error> pg_topic_store::load_topics_named(
    std::span<const std::string> names) {
    if (names.empty()) return std::vector<meta::topic>{};
    return topics_where(" WHERE name = ANY($1::text[])",
                        {cluster::array_literal(std::vector<std::string>(names.begin(), names.end()))});
}

result<std::vector<meta::topic>, meta::store_error> pg_topic_store::topics_where(const std::string& where,
                                                                                 const cluster::pg_params& params) {
    using both = std::pair<cluster::pg_rows, cluster::pg_rows>;
    auto read = session_.query("topics", [&](cluster::pg_connection& pg) -> result<both, cluster::pg_error> {
        auto topics = pg.exec(
            "SELECT topic_id, name, partitions, replication_factor, created_ms FROM ketch_topics" + where, params);
        if (!topics.ok()) return failure{topics.error()};
        auto configs = pg.exec(
            "SELECT topic_id, name, value FROM ketch_topic_configs WHERE topic_id IN (SELECT topic_id FROM "
            "ketch_topics" +
                where + ")",
            params);
        if (!configs.ok()) return failure{configs.error()};
        return both{std::move(*topics), std::move(*configs)};
    });
    if (!read.ok()) return failure{read.error()};
    auto* rows = &read->first;
    auto* cfg = &read->second;
    std::map<std::string, meta::config_map> configs;
    for (size_t i = 0; i < cfg->rows.size(); ++i) configs[cfg->at(i, 0)][cfg->at(i, 1)] = cfg->at(i, 2);
    std::vector<meta::topic> out;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        auto id = uuid::from_base64(rows->at(i, 0));
        if (!id) return failure{meta::store_error{"ketch_topics: a topic id that is not a uuid: " + rows->at(i, 0)}};
        out.push_back({rows->at(i, 1), *id, std::stoi(rows->at(i, 2)), int16_t(std::stoi(rows->at(i, 3))),
                       configs[rows->at(i, 0)], std::stoll(rows->at(i, 4))});
    }
    return out;
}

status<meta::store_error> pg_topic_store::insert_topics(std::span<const meta::topic> topics) {
    return change([&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        for (auto& t : topics) {
            const std::string id = t.id.to_base64();
            auto r = pg.exec(
                "INSERT INTO ketch_topics (topic_id, name, partitions, replication_factor, created_ms) "
                "VALUES ($1, $2, $3, $4, $5)",
                {id, t.name, std::to_string(t.partition_count), std::to_string(t.replication_factor),
                 std::to_string(t.created_ms)});
            if (!r.ok()) return failure{r.error()};
            if (auto c = insert_configs(pg, id, t.configs); !c.ok()) return c;
        }
        return ok_v;
    });
}

status<meta::store_error> pg_topic_store::delete_topics(std::span<const uuid> ids) {
    return change([&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        for (auto& id : ids) {
            auto r = pg.exec("DELETE FROM ketch_topics WHERE topic_id = $1", {id.to_base64()});
            if (!r.ok()) return failure{r.error()};
        }
        return ok_v;
    });
}

status<meta::store_error> pg_topic_store::set_partition_count(const uuid& id, int32_t partition_count) {
    return change([&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        auto r = pg.exec("UPDATE ketch_topics SET partitions = $2 WHERE topic_id = $1",
                         {id.to_base64(), std::to_string(partition_count)});
        if (!r.ok()) return failure{r.error()};
        if (r->affected == 0) return failure{cluster::pg_error{"no such topic", "", false}};
        return ok_v;
    });
}

status<meta::store_error> pg_topic_store::set_topic_configs(const uuid& id, const meta::config_map& configs) {
    return change([&](cluster::pg_connection& pg) -> status<cluster::pg_error> {
        const std::string key = id.to_base64();
        auto r = pg.exec("DELETE FROM ketch_topic_configs WHERE topic_id = $1", {key});
        if (!r.ok()) return failure{r.error()};
        return insert_configs(pg, key, configs);
    });
}

}  // namespace ketch::shared
