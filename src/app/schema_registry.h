// The built-in schema registry of `ketch` (docs/schema_registry.md): the
// Confluent REST API on --schema-registry-addr, its state in
// <data-dir>/schemas.db (with --cluster in PostgreSQL, shared by every broker:
// app/pg_schema_store.h), TLS with the broker's certificate when --tls-cert is
// given, HTTP Basic with the broker's SCRAM users when any exist, and subject
// access decided by the broker's ACLs when --authorizer is on.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "app/options.h"
#include "cluster/pg_pool.h"
#include "meta/credential_store.h"
#include "security/authorizer.h"

namespace ketch::app {

class running_schema_registry;

// A Confluent-framed value decoded through the registry (the console's
// message browser): its schema id and type, and the value as JSON text.
struct framed_value {
    int64_t schema_id = 0;
    std::string schema_type;  // AVRO, JSON, PROTOBUF
    std::string json;
};
using framed_decoder = std::function<std::optional<framed_value>(std::string_view bytes)>;

struct schema_registry_handle {
    std::shared_ptr<running_schema_registry> running;  // null when off or not bound
    std::string url;                                   // "http://127.0.0.1:8081" (https with TLS)
    void stop();
    // Decodes bytes that start with Confluent's framing (magic byte 0, schema
    // id) through this registry; nothing when off, not framed, or the bytes do
    // not decode with the schema the id names.
    framed_decoder decoder() const;
};

// Binds and starts serving at once; the store opens at the first request
// (the others wait for it), so start-up pays only the bind. A bind failure is
// logged and the broker goes on without the registry.
// creds, authz (nullable) and pg (cluster mode's pool, else null) must outlive the handle's stop().
schema_registry_handle start_schema_registry(const options& opt, meta::credential_store& creds,
                                             const security::authorizer* authz, cluster::pg_pool* pg);

}  // namespace ketch::app
