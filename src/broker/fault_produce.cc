#include "broker/fault_produce.h"

#include "broker/fault_topics.h"

namespace ketch::broker {

kafka::produce_request take_matched(kafka::produce_request& req, const fault::match& m,
                                    const meta::topic_registry& topics) {
    kafka::produce_request matched;
    matched.transactional_id = req.transactional_id;
    matched.acks = req.acks;
    matched.timeout_ms = req.timeout_ms;
    std::vector<kafka::produce_request::topic_produce_data> kept;
    for (auto& td : req.topic_data) {
        if (!m.topic || fault_detail::topic_name(td, topics) != *m.topic) {
            kept.push_back(std::move(td));
            continue;
        }
        kafka::produce_request::topic_produce_data hit, rest;
        hit.name = rest.name = td.name;
        hit.topic_id = rest.topic_id = td.topic_id;
        for (auto& pd : td.partition_data)
            (!m.partition || pd.index == *m.partition ? hit : rest).partition_data.push_back(std::move(pd));
        if (!hit.partition_data.empty()) matched.topic_data.push_back(std::move(hit));
        if (!rest.partition_data.empty()) kept.push_back(std::move(rest));
    }
    req.topic_data = std::move(kept);
    return matched;
}

void merge_rows(kafka::produce_response& into, kafka::produce_response&& failed) {
    for (auto& t : failed.responses) {
        auto same = std::find_if(into.responses.begin(), into.responses.end(),
                                 [&](const auto& r) { return r.name == t.name && r.topic_id == t.topic_id; });
        if (same == into.responses.end()) {
            into.responses.push_back(std::move(t));
            continue;
        }
        for (auto& p : t.partition_responses) same->partition_responses.push_back(std::move(p));
    }
}

}  // namespace ketch::broker
