// Field-by-field comparison of Kafka's recorded answer and ketch's, after
// both are normalised (normalize.h), judged against the allowed differences.
//
// Arrays of objects that share a key field (api_key, partition_index, index,
// partition, name, key, base_offset, offset_delta, broker_id, node_id) with
// distinct scalar values on both sides are matched by that key, so a missing
// element is one difference, not a cascade; their paths name the key
// ("/topics/name=${t}/error_code"). An order that differs is one more
// difference at ".../<order>" (the order rules in normalize.cc sort the
// arrays whose order Kafka leaves to hash maps). Other arrays compare by
// index. Topic ids (normalised to "<uuid:...>") must correspond one-to-one
// across the whole scenario: Kafka's first id may be any id on ketch's side,
// but from then on always the same one.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "differences.h"
#include "runner.h"

namespace ketch::conform {

inline constexpr const char* k_absent = "<absent>";

struct field_diff {
    std::string path;  // "/topics/name=x/error_code", or "<outcome>"
    json kafka;        // k_absent when the field is missing on that side
    json ketch;
    const allowed_difference* allowed_by = nullptr;
};

struct step_verdict {
    std::string step_id;
    std::vector<field_diff> diffs;  // allowed ones carry allowed_by
    bool ok() const {
        for (auto& d : diffs)
            if (!d.allowed_by) return false;
        return true;
    }
};

// Which allowed differences came into play: `considered` (the entry applied
// to a compared step — for "subset", one whose answers hold the array) and
// `used` (it allowed a difference). Considered but never used = stale.
struct difference_usage {
    std::set<std::string> considered, used;
};

// Compares the steps of one scenario in order (the id correspondence spans
// all of them).
class scenario_comparison {
public:
    scenario_comparison(std::string scenario_name, const std::vector<allowed_difference>& allowed,
                        difference_usage& usage)
        : scenario_(std::move(scenario_name)), allowed_(allowed), usage_(usage) {}

    step_verdict compare(const step_outcome& kafka, const step_outcome& ketch);

private:
    void diff_into(const json& k, const json& t, const std::string& path, std::vector<field_diff>& out);
    void diff_arrays(const json& k, const json& t, const std::string& path, std::vector<field_diff>& out);
    bool same_uuid(const std::string& k, const std::string& t);
    void apply_subset(const allowed_difference& d, json& kafka, const json& ketch);

    std::string scenario_;
    const std::vector<allowed_difference>& allowed_;
    difference_usage& usage_;
    std::map<std::string, std::string> kafka_to_ketch_, ketch_to_kafka_;
};

std::string show_value(const json& v);  // short one-line form for diff output

}  // namespace ketch::conform
