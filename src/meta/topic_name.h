// Kafka's topic-name rules, as Apache Kafka 4.3.1 applies them
// (clients/.../common/internals/Topic.java and the controller's
// ReplicationControlManager.validateNewTopicNames).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ketch::meta {

inline constexpr size_t max_topic_name_length = 249;  // in UTF-16 code units, as Java counts

inline constexpr std::string_view consumer_offsets_topic = "__consumer_offsets";
inline constexpr std::string_view transaction_state_topic = "__transaction_state";
inline constexpr std::string_view share_group_state_topic = "__share_group_state";
inline constexpr std::string_view cluster_metadata_topic = "__cluster_metadata";

// nullopt when `name` is a legal topic name; otherwise the complete message
// Kafka sends with INVALID_TOPIC_EXCEPTION, e.g.
// "Topic name is invalid: '.' is not allowed". Checks, in Kafka's order:
// empty, ".", "..", longer than 249, a character outside [a-zA-Z0-9._-].
std::optional<std::string> validate_topic_name(std::string_view name);

// Kafka's internal topics (__consumer_offsets, __transaction_state,
// __share_group_state): reported with is_internal=true in Metadata. A client
// may create them with CreateTopics like any other topic; only
// __cluster_metadata is refused (ControllerApis.createTopics: INVALID_REQUEST,
// "Creation of internal topic __cluster_metadata is prohibited.").
bool is_internal_topic(std::string_view name);

// '.' and '_' collide in metric names, so Kafka refuses a new topic whose
// name equals an existing one after mapping '.' to '_'.
bool has_collision_chars(std::string_view name);
std::string unify_collision_chars(std::string_view name);

// The set of existing topic names, indexed for the collision rule.
class collision_index {
public:
    void add(std::string_view name);
    void remove(std::string_view name);
    // An existing topic `name` would collide with (possibly `name` itself),
    // the smallest such name if several; nullopt if none.
    std::optional<std::string> colliding(std::string_view name) const;

private:
    std::set<std::string, std::less<>> unified_;  // "unified\0original" keys
};

// The name check of one CreateTopics entry against the topics that existed
// before the request (topics created earlier in the same request do not
// count). Mirrors validateNewTopicNames: an invalid name gives its reason, but
// a colliding name gives INVALID_TOPIC_EXCEPTION
// "Topic 'a_b' collides with existing topic: a.b" (this wins even over an
// invalid-name reason, e.g. ".." when "__" exists). A name equal to an existing
// topic is not reported here: the caller answers TOPIC_ALREADY_EXISTS.
// `tenant_names` (--tenancy): `name` may be a tenant's internal name "T~L"
// (docs/design/tenancy.md), of which the rules apply to L.
std::optional<std::string> check_new_topic_name(std::string_view name, const collision_index& existing,
                                                bool tenant_names = false);

// L of a tenant's internal name "T~L" (T non-empty, of topic characters);
// `name` itself otherwise.
std::string_view tenant_local_part(std::string_view name);

}  // namespace ketch::meta
