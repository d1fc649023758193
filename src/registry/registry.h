// registry::registry: subjects, versions, global ids, compatibility and mode
// settings, in memory and written through to a schema_store. Every public call
// is thread-safe (readers share a lock, writers hold it alone); a write is
// durable before the call returns. Semantics follow Confluent Schema Registry
// (core/.../storage/KafkaSchemaRegistry.java, AbstractSchemaRegistry.java):
// - register is idempotent: a schema already live under the subject returns its
//   version; a schema known under another subject gets a new version with the
//   same id; otherwise the next id (above every id ever given; never reused).
// - deletes are soft first; a permanent delete needs a soft one before it.
// - a version referenced by another schema cannot be deleted (42206).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "registry/compatibility.h"
#include "registry/error.h"
#include "registry/format.h"
#include "registry/store.h"

namespace ketch::registry {

struct schema_request {
    std::string schema;
    schema_type type = schema_type::avro;
    std::vector<reference> refs;
    std::optional<int64_t> id;       // IMPORT mode only
    std::optional<int64_t> version;  // IMPORT mode only
    bool normalize = false;
};

// A subject's version with its schema.
struct subject_version {
    std::string subject;
    int32_t version = 0;
    stored_schema schema;
    bool deleted = false;
};

struct compatibility_result {
    bool compatible = true;
    std::vector<std::string> messages;
};

// "latest" (or -1) is k_latest; 1..2^31-1 a version; anything else 42202.
inline constexpr int32_t k_latest = -1;
result_t<int32_t> parse_version(const std::string& s);

class registry {
public:
    static result_t<std::unique_ptr<registry>> open(std::unique_ptr<schema_store> store);

    // POST /subjects/{s}/versions: the id (and the version it has under the subject).
    result_t<subject_version> register_schema(const std::string& subject, const schema_request& req);
    // POST /subjects/{s}: the version of the subject holding this schema.
    result_t<subject_version> lookup(const std::string& subject, const schema_request& req, bool deleted) const;

    result_t<stored_schema> schema_by_id(int64_t id) const;
    // The schema of `id` parsed (cached), e.g. for ?format=serialized and the record decoder.
    result_t<parsed_ptr> parsed_by_id(int64_t id) const;
    // The schemas `id` references, resolved, dependencies first.
    result_t<std::vector<dependency>> dependencies_of(int64_t id) const;
    std::vector<std::pair<std::string, int32_t>> versions_of_id(int64_t id, bool deleted) const;
    std::vector<stored_schema> schemas(const std::string& subject_prefix, bool deleted, bool latest_only) const;
    std::vector<std::string> subjects(const std::string& prefix, bool deleted) const;
    result_t<std::vector<int32_t>> versions(const std::string& subject, bool deleted) const;
    result_t<subject_version> version(const std::string& subject, int32_t v, bool deleted) const;
    result_t<std::vector<int64_t>> referenced_by(const std::string& subject, int32_t v) const;

    result_t<std::vector<int32_t>> delete_subject(const std::string& subject, bool permanent);
    result_t<int32_t> delete_version(const std::string& subject, int32_t v, bool permanent);

    // POST /compatibility/subjects/{s}/versions[/{v}]; v nullopt: against the
    // versions the subject's level names. As Confluent's CompatibilityResource:
    // a named version that does not exist (the subject may not either) is 40402,
    // checked before the schema is parsed; "latest" of nothing is compatible; an
    // invalid schema is 42201, or with verbose an incompatible answer whose one
    // message is the parse error.
    result_t<compatibility_result> test_compatibility(const std::string& subject, std::optional<int32_t> v,
                                                      const schema_request& req, bool verbose = false) const;

    // Configs and modes; subject "" is the global setting.
    result_t<compat_level> config(const std::string& subject, bool default_to_global) const;
    result_t<compat_level> set_config(const std::string& subject, compat_level level);
    result_t<compat_level> delete_config(const std::string& subject);
    result_t<mode> get_mode(const std::string& subject, bool default_to_global) const;
    result_t<mode> set_mode(const std::string& subject, mode m, bool force);
    result_t<mode> delete_mode(const std::string& subject);

    // Advanced by every write while it holds the write lock: an answer read
    // under generation G is still right while generation() == G (the HTTP
    // layer's rendered id lookups are cached by it).
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

    // Loads the store again when another writer changed it (a shared store,
    // cluster mode: called before every request so that each broker answers
    // what any broker wrote); nothing for a local store. 50001 when the store
    // does not answer.
    status<error> refresh();

private:
    explicit registry(std::unique_ptr<schema_store> store) : store_(std::move(store)) {}

    // Callers hold mu_ (shared or unique).
    result_t<parsed_ptr> parse_request(const schema_request& req) const;
    result_t<parsed_ptr> parsed_of(int64_t id) const;
    result_t<std::vector<dependency>> resolve_refs(const std::vector<reference>& refs, int depth) const;
    const version_entry* find_version(const std::string& subject, int32_t v, bool deleted) const;
    std::vector<previous_version> live_versions(const std::string& subject) const;
    compat_level level_of(const std::string& subject) const;
    mode mode_of(const std::string& subject) const;
    bool is_referenced(const std::string& subject, int32_t v) const;
    std::optional<int64_t> id_of(const std::string& key) const;
    static std::string lookup_key(schema_type t, const std::string& canonical, const std::vector<reference>& refs);
    subject_version make_version(const std::string& subject, const version_entry& e) const;
    result_t<int64_t> choose_id(const std::string& subject, const schema_request& req, const std::string& key,
                                const std::string& text) const;

    // mu_ held alone: the state replaced by what the store holds.
    status<error> reload_locked();
    void apply_snapshot(store_snapshot&& snap);
    // A failed store call as 50001.
    static error store_failed(const std::string& what, const store_error& e);

    // The per-subject settings (compatibility levels, modes: registry_write.cc):
    // `fallback` stands where none is set, `not_configured` is the 404 of a
    // subject without its own; `put` writes one to the store.
    template <class T>
    using put_setting_fn = status<store_error> (schema_store::*)(const std::string&, std::optional<T>);
    using not_configured_fn = error (*)(const std::string& subject);
    // mu_ held (shared or unique).
    template <class T>
    static result_t<T> setting_of(const std::map<std::string, T>& settings, const std::string& subject,
                                  bool default_to_global, T fallback, not_configured_fn not_configured);
    // Under write(): the store first, then memory.
    template <class T>
    result_t<T> put_setting(std::map<std::string, T>& settings, const std::string& subject, T value,
                            put_setting_fn<T> put);
    template <class T>
    result_t<T> delete_setting(std::map<std::string, T>& settings, const std::string& subject, T fallback,
                               not_configured_fn not_configured, put_setting_fn<T> put);
    result_t<subject_version> register_locked(const std::string& subject, const schema_request& req);

    // fn() under the write lock and between the store's begin_writes() and
    // end_writes(): in cluster mode every broker's registry writes one at a
    // time, each deciding on the store as it is (loaded again first when
    // another broker wrote since). When the store does not keep what fn()
    // wrote, the state is loaded again and the answer is 50001.
    template <class F>
    auto write(F fn) -> decltype(fn()) {
        auto lock = lock_for_write();
        auto stale = store_->begin_writes();
        if (!stale) return failure{store_failed("Error while locking the schema store: ", stale.error())};
        if (*stale)
            if (auto st = reload_locked(); !st.ok()) {
                (void)store_->end_writes(false);
                return failure{st.error()};
            }
        auto r = fn();
        if (auto end = store_->end_writes(r.ok()); !end.ok()) {
            (void)reload_locked();
            if (r.ok()) return failure{store_failed("Error while writing the schema store: ", end.error())};
        }
        return r;
    }

    // The write lock: mu_ held alone, generation_ advanced before it is released.
    struct write_lock {
        std::unique_lock<std::shared_mutex> lock;
        std::atomic<uint64_t>& generation;
        ~write_lock() { generation.fetch_add(1, std::memory_order_acq_rel); }
    };
    write_lock lock_for_write() { return write_lock{std::unique_lock(mu_), generation_}; }

    mutable std::shared_mutex mu_;
    std::atomic<uint64_t> generation_{0};
    std::unique_ptr<schema_store> store_;
    std::map<int64_t, stored_schema> schemas_;
    std::map<std::string, std::vector<version_entry>> subjects_;
    std::map<std::string, compat_level> configs_;
    std::map<std::string, mode> modes_;
    std::unordered_map<std::string, int64_t> by_key_;  // lookup_key -> id
    std::unordered_map<int64_t, int> version_count_;   // id -> versions (soft-deleted too) naming it
    int64_t max_id_ = 0;
    mutable std::mutex parsed_mu_;
    mutable std::map<int64_t, parsed_ptr> parsed_;  // parse cache of stored schemas
};

}  // namespace ketch::registry
