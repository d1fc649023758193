// A broker of the cluster as clients are told about it: its node id, rack
// and one advertised address per listener name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ketch::cluster {

struct endpoint {
    std::string listener;  // PLAINTEXT, SASL_SSL, ... (the listener's name)
    std::string host;
    int32_t port = 0;
};

struct broker_info {
    int32_t node_id = 0;
    std::optional<std::string> rack;
    std::vector<endpoint> endpoints;

    const endpoint* find(const std::string& listener) const {
        for (auto& e : endpoints)
            if (e.listener == listener) return &e;
        return nullptr;
    }
};

}  // namespace ketch::cluster
