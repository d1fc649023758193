// registry::schema_store: where the registry keeps its state durably. Domain
// operations, no SQL (an engine other than the embedded SQLite one can
// implement it). Contract: a call that returns ok is durable; a call that
// fails changed nothing; multi-item calls are atomic; calls are serialised by
// the caller (registry::registry holds its lock around them).
//
// A shared store (cluster mode: app/pg_schema_store.h) has other writers.
// The registry brackets each of its writes with begin_writes() and
// end_writes(): begin_writes() takes the store's write lock (every writer's,
// held to end_writes()) and says whether another writer changed the store
// since this one last loaded it (the registry then loads it before deciding);
// the writes between are one transaction, made durable by end_writes(true).
// changed() says whether a load would see something new. A local store has
// no other writer: begin_writes() is false, end_writes() nothing, and each
// write durable when it returns.
//
// Schemas are never removed: an id, once given, keeps its text, so ids are
// never reused and the next id is always above every stored one. A subject's
// version is removed only by a permanent delete (a tombstone: the row is gone).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "registry/types.h"

namespace ketch::registry {

struct store_error {
    std::string message;
};

struct store_snapshot {
    std::vector<stored_schema> schemas;
    std::map<std::string, std::vector<version_entry>> subjects;  // versions ascending
    std::map<std::string, compat_level> configs;                 // "" is the global level
    std::map<std::string, mode> modes;                           // "" is the global mode
};

class schema_store {
public:
    virtual ~schema_store() = default;
    virtual result<store_snapshot, store_error> load() = 0;
    // Adds `schema` (when given: a new id) and puts the version, in one transaction.
    virtual status<store_error> put_version(const std::optional<stored_schema>& schema, const std::string& subject,
                                            const version_entry& v) = 0;
    // Sets the deleted flag of versions, or removes them (permanent), in one transaction.
    virtual status<store_error> mark_deleted(const std::string& subject, const std::vector<int32_t>& versions) = 0;
    virtual status<store_error> remove_versions(const std::string& subject, const std::vector<int32_t>& versions) = 0;
    // nullopt removes the setting.
    virtual status<store_error> put_config(const std::string& subject, std::optional<compat_level> level) = 0;
    virtual status<store_error> put_mode(const std::string& subject, std::optional<mode> m) = 0;
    // True when another writer changed the store since the last load() or
    // write of this one (a shared store); false for a store with no other writer.
    virtual result<bool, store_error> changed() { return false; }
    virtual result<bool, store_error> begin_writes() { return false; }
    // commit false (or a write between that failed): nothing of them is kept.
    virtual status<store_error> end_writes(bool commit) { return ok_v; }
};

// Everything in memory (unit tests).
std::unique_ptr<schema_store> make_memory_store();

}  // namespace ketch::registry
