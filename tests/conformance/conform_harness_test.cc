// Tests of the conformance harness itself (tools/conform/): if these rules
// were wrong, the replay could pass on a real difference or fail on none.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "batches.h"
#include "bindings.h"
#include "compare.h"
#include "json_path.h"
#include "normalize.h"
#include "protocol/json_base.h"
#include "scenario.h"

using namespace ketch;
using namespace ketch::conform;

namespace {

step_outcome response(json body, std::string id = "s") { return {std::move(id), "response", std::move(body), "", 1}; }

std::vector<field_diff> diffs_of(const json& kafka, const json& ketch,
                                 const std::vector<allowed_difference>& allowed = {}) {
    difference_usage usage;
    scenario_comparison cmp("sc", allowed, usage);
    return cmp.compare(response(kafka), response(ketch)).diffs;
}

}  // namespace

TEST(conform_bindings, placeholder_is_unique_per_run_and_stable_within_it) {
    bindings a("run1"), b("run2");
    auto x1 = a.substitute_string("${t}");
    EXPECT_EQ(a.substitute_string("${t}"), x1);
    EXPECT_NE(a.substitute_string("${u}"), x1);
    EXPECT_NE(b.substitute_string("${t}"), x1);
    EXPECT_EQ(a.substitute_string("${long:250}").size(), 250u);
}

TEST(conform_bindings, reverse_restores_placeholders_inside_text) {
    bindings b("r");
    json req = b.substitute(json{{"name", "${t}"}, {"other", "${t2}"}});
    json msg = "Topic '" + req["name"].get<std::string>() + "' collides with " + req["other"].get<std::string>();
    EXPECT_EQ(b.reverse(msg), "Topic '${t}' collides with ${t2}");
}

TEST(conform_bindings, whole_string_capture_keeps_json_type) {
    bindings b("r");
    b.capture("off", 42);
    EXPECT_EQ(b.substitute(json("${off}")), json(42));
    EXPECT_EQ(b.substitute(json("at ${off}")), json("at 42"));
}

TEST(conform_json_path, double_star_matches_any_depth_single_star_one_segment) {
    EXPECT_TRUE(path_matches("/**/error_code", "/error_code"));
    EXPECT_TRUE(path_matches("/**/error_code", "/topics/name=a/error_code"));
    EXPECT_TRUE(path_matches("/topics/*/error_code", "/topics/name=a/error_code"));
    EXPECT_FALSE(path_matches("/topics/*/error_code", "/topics/name=a/partitions/0/error_code"));
    EXPECT_TRUE(name_matches("*-txn", "v3-txn"));
    EXPECT_FALSE(name_matches("*-txn", "v3-group"));
}

TEST(conform_normalize, broker_specific_fields_compare_equal_and_behaviour_does_not) {
    side_context kafka{"10.0.0.1", 9092}, ketch{"127.0.0.1", 4242};
    json k = {{"throttle_time_ms", 5},
              {"host", "10.0.0.1"},
              {"port", 9092},
              {"error_message", "Kafka words"},
              {"error_code", 3}};
    json t = {{"throttle_time_ms", 0},
              {"host", "127.0.0.1"},
              {"port", 4242},
              {"error_message", "ketch words"},
              {"error_code", 3}};
    EXPECT_EQ(normalize(k, kafka, {}), normalize(t, ketch, {}));
    t["error_message"] = nullptr;  // null vs non-null is a difference
    EXPECT_NE(normalize(k, kafka, {}), normalize(t, ketch, {}));
    t["error_message"] = "ketch words";
    t["error_code"] = 5;
    EXPECT_NE(normalize(k, kafka, {}), normalize(t, ketch, {}));
    json reworded = k;
    reworded["error_message"] = "other words";
    EXPECT_EQ(normalize(k, kafka, {}), normalize(reworded, kafka, {}));
    EXPECT_NE(normalize(k, kafka, {true, {}}), normalize(reworded, kafka, {true, {}}));  // exact_error_messages
}

TEST(conform_normalize, own_topics_only_drops_foreign_topics_when_opted_in) {
    json r = {{"topics", json::array({{{"name", "${t}"}}, {{"name", "someone-else"}}})}};
    side_context c{"h", 1};
    EXPECT_EQ(normalize(r, c, {false, {"own_topics_only"}})["topics"].size(), 1u);
    EXPECT_EQ(normalize(r, c, {})["topics"].size(), 2u);
}

// Kafka's classic member ids are "<client id>-<java uuid>" (GroupMetadataManager
// generateMemberId); each broker draws its own uuids.
TEST(conform_normalize, member_ids_are_numbered_by_first_appearance_across_the_steps_of_a_run) {
    const std::string ka = "c-0f0e0d0c-0b0a-4908-8706-050403020100", kb = "c-11111111-2222-4333-8444-555555555555";
    const std::string ta = "c-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", tb = "c-99999999-8888-4777-8666-555555555555";
    auto run = [](const std::string& a, const std::string& b) {
        side_context c{"h", 1};
        json out = json::array();
        out.push_back(normalize(json{{"member_id", a}, {"leader", a}}, c, {}));  // a joins, leads
        out.push_back(normalize(json{{"member_id", b}, {"leader", a}}, c, {}));  // b joins
        // Describe: members in hash order (b first here) sorted by their tokens.
        out.push_back(normalize(json{{"members", json::array({{{"member_id", b}}, {{"member_id", a}}})}}, c, {}));
        out.push_back(normalize(json{{"member_id", "${m}"}, {"leader", ""}}, c, {}));  // scenario's own, empty
        return out;
    };
    json kafka = run(ka, kb), ketch = run(ta, tb);
    EXPECT_EQ(kafka, ketch);
    EXPECT_EQ(kafka[0], (json{{"member_id", "c-member-1"}, {"leader", "c-member-1"}}));
    EXPECT_EQ(kafka[1]["member_id"], "c-member-2");
    EXPECT_EQ(kafka[2]["members"][0]["member_id"], "c-member-1");
    EXPECT_EQ(kafka[3], (json{{"member_id", "${m}"}, {"leader", ""}}));
    // The same member answered twice where Kafka had two members: a difference.
    EXPECT_NE(kafka, run(ta, ta));
    // Another prefix (client id vs instance id) is a difference; a bare uuid is just "member-N".
    side_context c{"h", 1};
    EXPECT_EQ(member_token("inst-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", c), "inst-member-1");
    EXPECT_EQ(member_token("AAAAAAAAAAAAAAAAAAAAAw", c), "member-2");
    EXPECT_EQ(member_token("inst-aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", c), "inst-member-1");
    EXPECT_EQ(member_token("${i}-aaaaaaaa-bbbb-4ccc-8ddd-000000000000", c), "${i}-member-3");
}

TEST(conform_normalize, group_listings_keep_own_groups_sorted_by_id) {
    side_context c{"h", 1};
    json listed = {
        {"groups", json::array({{{"group_id", "${g2}"}}, {{"group_id", "other"}}, {{"group_id", "${g1}"}}})}};
    EXPECT_EQ(normalize(listed, c, {false, {"own_groups_only"}})["groups"],
              (json::array({{{"group_id", "${g1}"}}, {{"group_id", "${g2}"}}})));
    json deleted = {{"results", json::array({{{"group_id", "${g2}"}, {"error_code", 0}},
                                             {{"group_id", "${g1}"}, {"error_code", 69}}})}};
    EXPECT_EQ(normalize(deleted, c, {})["results"][0]["group_id"], "${g1}");
}

TEST(conform_scenario, await_reads_an_earlier_send_only_step_on_its_connection) {
    json sc = {{"name", "x"},
               {"steps", json::array({{{"id", "join"},
                                       {"api", "JoinGroup"},
                                       {"version", 5},
                                       {"connection", "b"},
                                       {"send_only", true},
                                       {"request", json::object()}},
                                      {{"id", "joined"}, {"await", "join"}, {"capture", {{"m", "/member_id"}}}}})}};
    auto parsed = parse_scenario(sc);
    ASSERT_EQ(parsed.steps.size(), 2u);
    EXPECT_EQ(parsed.steps[1].api, parsed.steps[0].api);
    EXPECT_EQ(parsed.steps[1].connection, "b");
    EXPECT_EQ(parsed.steps[1].version, 5);
    json bad = sc;
    bad["steps"][0].erase("send_only");  // nothing left to await
    EXPECT_THROW(parse_scenario(bad), std::invalid_argument);
    bad = sc;
    bad["steps"][0]["capture"] = {{"m", "/member_id"}};  // a send_only step has no answer to capture from
    EXPECT_THROW(parse_scenario(bad), std::invalid_argument);
}

TEST(conform_compare, keyed_arrays_report_one_missing_element_by_key) {
    json k = {
        {"api_keys", json::array({{{"api_key", 0}, {"max_version", 13}}, {{"api_key", 1}, {"max_version", 18}}})}};
    json t = {{"api_keys", json::array({{{"api_key", 1}, {"max_version", 18}}})}};
    auto d = diffs_of(k, t);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].path, "/api_keys/api_key=0");
    EXPECT_EQ(d[0].ketch, json(k_absent));
}

TEST(conform_compare, keyed_arrays_in_another_order_differ_unless_a_rule_sorts_them) {
    json k = {{"api_keys", json::array({{{"api_key", 0}}, {{"api_key", 1}}})}};
    json t = {{"api_keys", json::array({{{"api_key", 1}}, {{"api_key", 0}}})}};
    auto d = diffs_of(k, t);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].path, "/api_keys/<order>");
    side_context c{"h", 1};
    json kt = {{"topics", json::array({{{"name", "a"}}, {{"name", "b"}}})}};
    json tt = {{"topics", json::array({{{"name", "b"}}, {{"name", "a"}}})}};
    EXPECT_TRUE(diffs_of(normalize(kt, c, {}), normalize(tt, c, {})).empty());  // topic_order
}

TEST(conform_compare, topic_ids_must_correspond_one_to_one_across_steps) {
    side_context c{"h", 1};
    auto ids = [&](const char* a, const char* b) {
        return normalize(
            json{{"topics", json::array({{{"name", "x"}, {"topic_id", a}}, {{"name", "y"}, {"topic_id", b}}})}}, c, {});
    };
    difference_usage usage;
    const std::vector<allowed_difference> none;  // the comparison keeps a reference: must outlive it
    scenario_comparison cmp("sc", none, usage);
    // Different random ids: fine.
    EXPECT_TRUE(cmp.compare(response(ids("KAFKAxxxxxxxxxxxxxxxxA", "KAFKAyyyyyyyyyyyyyyyyA")),
                            response(ids("KETCHxxxxxxxxxxxxxxxxA", "KETCHyyyyyyyyyyyyyyyyA")))
                    .ok());
    // Later, ketch reports x's id for y: the correspondence breaks.
    EXPECT_FALSE(cmp.compare(response(ids("KAFKAxxxxxxxxxxxxxxxxA", "KAFKAyyyyyyyyyyyyyyyyA")),
                             response(ids("KETCHxxxxxxxxxxxxxxxxA", "KETCHxxxxxxxxxxxxxxxxA")))
                     .ok());
}

TEST(conform_compare, value_entry_allows_only_the_stated_values) {
    allowed_difference d;
    d.id = "e";
    d.scenario = "sc";
    d.path = "/topics/name=t/error_code";
    d.kafka = 38;
    d.ketch = 0;
    const std::vector<allowed_difference> allowed{d};  // outlives the diffs that point into it
    json k = {{"topics", json::array({{{"name", "t"}, {"error_code", 38}}})}};
    auto ok = diffs_of(k, {{"topics", json::array({{{"name", "t"}, {"error_code", 0}}})}}, allowed);
    ASSERT_EQ(ok.size(), 1u);
    EXPECT_EQ(ok[0].allowed_by, &allowed[0]);
    auto other = diffs_of(k, {{"topics", json::array({{{"name", "t"}, {"error_code", 7}}})}}, allowed);
    ASSERT_EQ(other.size(), 1u);
    EXPECT_EQ(other[0].allowed_by, nullptr);
}

TEST(conform_compare, subset_entry_allows_fewer_elements_but_not_other_content) {
    allowed_difference d;
    d.id = "s";
    d.path = "/api_keys";
    d.kind = "subset";
    d.key = "api_key";
    json k = {{"api_keys", json::array({{{"api_key", 0}, {"max", 13}}, {{"api_key", 3}, {"max", 13}}})}};
    EXPECT_TRUE(diffs_of(k, {{"api_keys", json::array({{{"api_key", 3}, {"max", 13}}})}}, {d}).empty());
    EXPECT_EQ(diffs_of(k, {{"api_keys", json::array({{{"api_key", 3}, {"max", 12}}})}}, {d}).size(), 1u);
    EXPECT_EQ(diffs_of(k, {{"api_keys", json::array({{{"api_key", 9}, {"max", 1}}})}}, {d}).size(), 1u);
}

TEST(conform_compare, a_different_kind_of_answer_is_an_outcome_difference) {
    difference_usage usage;
    const std::vector<allowed_difference> none;  // the comparison keeps a reference: must outlive it
    scenario_comparison cmp("sc", none, usage);
    step_outcome closed{"s", "closed", nullptr, "", 1};
    auto v = cmp.compare(response(json::object()), closed);
    ASSERT_EQ(v.diffs.size(), 1u);
    EXPECT_EQ(v.diffs[0].path, "<outcome>");
}

TEST(conform_batches, built_batches_decode_back_and_corruptions_are_what_they_say) {
    json spec = {
        {"$batches",
         json::array({{{"records", json::array({{{"key", "k"}, {"value", "v"}, {"timestamp", 1000}},
                                                {{"key", nullptr}, {"value", "w"}, {"timestamp", 1005}}})}}})}};
    auto described = describe_records(kafka::base64_decode(expand_record_specs(spec).get<std::string>()));
    auto& b = described["batches"][0];
    EXPECT_TRUE(b["crc_valid"].get<bool>());
    EXPECT_EQ(b["records_count"], 2);
    EXPECT_EQ(b["max_timestamp"], 1005);
    EXPECT_EQ(b["records"][1]["key"], nullptr);
    EXPECT_EQ(b["records"][1]["value"], "w");

    spec["$batches"][0]["bad_crc"] = true;
    auto bad = describe_records(kafka::base64_decode(expand_record_specs(spec).get<std::string>()));
    EXPECT_FALSE(bad["batches"][0]["crc_valid"].get<bool>());

    spec["$batches"][0].erase("bad_crc");
    spec["$batches"][0]["set"] = {{"records_count", 3}};
    auto miscounted = describe_records(kafka::base64_decode(expand_record_specs(spec).get<std::string>()));
    EXPECT_TRUE(miscounted["batches"][0]["crc_valid"].get<bool>());  // only the count is wrong
    EXPECT_EQ(miscounted["batches"][0]["records_count"], 3);
    EXPECT_TRUE(miscounted["batches"][0].contains("records_error"));
}

TEST(conform_batches, repeat_builds_a_large_bytes_field_and_refuses_bad_specs) {
    json req = {{"metrics", {{"$repeat", {{"unit", "ab"}, {"count", 3}}}}}, {"other", 1}};
    auto out = expand_record_specs(req);
    auto b = kafka::base64_decode(out["metrics"].get<std::string>());
    EXPECT_EQ(std::string(b.begin(), b.end()), "ababab");
    EXPECT_EQ(out["other"], 1);
    EXPECT_THROW(expand_record_specs(json{{"m", {{"$repeat", {{"unit", ""}, {"count", 3}}}}}}), std::invalid_argument);
    EXPECT_THROW(expand_record_specs(json{{"m", {{"$repeat", {{"unit", "x"}, {"count", int64_t(1) << 40}}}}}}),
                 std::invalid_argument);
}

TEST(conform_differences, entries_without_a_reason_are_refused) {
    std::string path = ::testing::TempDir() + "/differences.md";
    {
        std::ofstream out(path);
        out << "# x\n```json differences\n[{\"id\": \"a\", \"path\": \"/x\", \"kafka\": 1, \"ketch\": 2}]\n```\n";
    }
    EXPECT_THROW(load_differences(path), std::runtime_error);
    {
        std::ofstream out(path);
        out << "```json differences\n[{\"id\": \"a\", \"path\": \"/x\", \"kafka\": 1, \"ketch\": 2, \"why\": "
               "\"w\"}]\n```\n";
    }
    EXPECT_EQ(load_differences(path).size(), 1u);
    std::remove(path.c_str());
}
