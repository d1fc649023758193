// Cluster mode's PostgreSQL schema, migrations 10 onward: what came after
// the first schema of each part. migrations.cc joins the ranges into
// migrations().
#include "cluster/migrations.h"

namespace ketch::cluster {

namespace {

// Never edit a migration that has shipped: add the next one at the end.
constexpr const char* k_migrations_10_on[] = {
    // 10: garbage collection of objects (shared/janitor.h): an object no
    // index row references any more (retention, DeleteRecords, a deleted
    // topic) is marked dead with the time, and deleted from the object store
    // only once the grace period has passed since.
    R"sql(
ALTER TABLE ketch_objects ADD COLUMN dead_since timestamptz;
CREATE INDEX ketch_objects_dead_since ON ketch_objects (dead_since) WHERE dead_since IS NOT NULL;
)sql",
    // 11: delegation tokens and dynamic broker configs shared by every broker
    // (shared/pg_token_store.h, pg_topic_store.h): a token's renewers are
    // length-prefixed principals (shared::put_prefixed), its HMAC is not
    // stored; a broker config's scope is '' for the cluster-wide default,
    // else a node id.
    R"sql(
CREATE TABLE ketch_delegation_tokens (
    token_id text PRIMARY KEY,
    owner bytea NOT NULL,
    requester bytea NOT NULL,
    renewers bytea NOT NULL,
    issue_ms bigint NOT NULL,
    expiry_ms bigint NOT NULL,
    max_ms bigint NOT NULL
);
CREATE TABLE ketch_broker_configs (
    scope text NOT NULL,
    name text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (scope, name)
);
)sql",
    // 12: compaction of the shared log (shared/compactor.h): each
    // partition's cleaner checkpoint, the first offset not compacted yet
    // (Kafka's cleaner-offset-checkpoint). Self-contained: one column.
    R"sql(
ALTER TABLE ketch_partitions ADD COLUMN first_dirty_offset bigint NOT NULL DEFAULT 0;
)sql",
    // 13: incremental garbage collection (shared/janitor.h): every statement
    // that drops or moves index rows notes their objects here, in its own
    // transaction; the janitor checks only those for remaining rows. Seeded
    // with every live object once. Self-contained: one table.
    R"sql(
CREATE TABLE ketch_gc_candidates (
    object_key text NOT NULL
);
INSERT INTO ketch_gc_candidates (object_key) SELECT object_key FROM ketch_objects WHERE dead_since IS NULL;
)sql",
    // 14: tenants shared by every broker (tenant::catalog over
    // shared::pg_quota_store: the entity as bytes, a key, a value), and the
    // verifier of the delegation token secret (app/cluster_secret.h: an
    // HMAC of a fixed text under the key, never the key) that every broker
    // must match; when a producer's rows were last written, so that they
    // expire as Kafka's producers do (cluster/retention.h expire_producers).
    R"sql(
CREATE TABLE ketch_tenant_settings (
    entity bytea NOT NULL,
    key text NOT NULL,
    value double precision NOT NULL,
    PRIMARY KEY (entity, key)
);
CREATE TABLE ketch_secret_verifiers (
    name text PRIMARY KEY,
    verifier bytea NOT NULL
);
ALTER TABLE ketch_producer_batches ADD COLUMN committed_at timestamptz NOT NULL DEFAULT now();
)sql",
    // 15: share groups on shared partitions (shared/pg_share_store.h,
    // docs/design/cluster.md "share groups"): a lease per partition (its
    // share-partitions, of every group, are served by the broker holding it)
    // and each share-partition's durable state (Kafka's ShareSnapshot: the
    // SPSO and the in-flight runs with states and delivery counts), written
    // only under the lease's epoch (GROUP configs, share.* among them, are
    // migration 17's). Self-contained: two tables.
    R"sql(
CREATE TABLE ketch_share_leases (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    node_id integer NOT NULL,
    incarnation text NOT NULL,
    epoch bigint NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (topic_id, partition)
);
CREATE TABLE ketch_share_state (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    group_id bytea NOT NULL,
    start_offset bigint NOT NULL,
    batches bytea NOT NULL,
    lease_epoch bigint NOT NULL,
    PRIMARY KEY (topic_id, partition, group_id)
);
)sql",
    // 16: the schema registry shared by every broker (app/pg_schema_store.h):
    // schemas by global id (never deleted), subjects' versions, compatibility
    // and mode settings ('' is the global one), and the change number every
    // registry write moves on by one in its transaction (a broker whose write
    // finds it moved past what it loaded loads again and retries).
    R"sql(
CREATE TABLE ketch_registry_schemas (
    id bigint PRIMARY KEY,
    type text NOT NULL,
    text bytea NOT NULL,
    refs text NOT NULL
);
CREATE TABLE ketch_registry_versions (
    subject bytea NOT NULL,
    version integer NOT NULL,
    schema_id bigint NOT NULL REFERENCES ketch_registry_schemas (id),
    deleted boolean NOT NULL,
    PRIMARY KEY (subject, version)
);
CREATE TABLE ketch_registry_configs (subject bytea PRIMARY KEY, compatibility text NOT NULL);
CREATE TABLE ketch_registry_modes (subject bytea PRIMARY KEY, mode text NOT NULL);
CREATE TABLE ketch_registry_changes (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    seq bigint NOT NULL
);
INSERT INTO ketch_registry_changes (seq) VALUES (0);
)sql",
    // 17: named config resources shared by every broker (shared/
    // pg_configs.cc): kind is Kafka's resource type (32 GROUP, 16
    // CLIENT_METRICS), name the group id or subscription name as bytes.
    R"sql(
CREATE TABLE ketch_resource_configs (
    kind smallint NOT NULL,
    name bytea NOT NULL,
    config text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (kind, name, config)
);
)sql",
    // 18: each partition's bytes in the batch index (the sum of its rows'
    // byte_length), kept by the statements that add and drop index rows (the
    // commit, retention and DeleteRecords, compaction), so that a tenant's
    // bytes in the cluster (max_storage_bytes) are a sum over its partitions,
    // not over its batches. Seeded from the index once. Self-contained: one
    // column.
    R"sql(
ALTER TABLE ketch_partitions ADD COLUMN stored_bytes bigint NOT NULL DEFAULT 0;
UPDATE ketch_partitions p SET stored_bytes = s.n FROM (SELECT topic_id, partition, sum(byte_length::bigint) AS n
    FROM ketch_batches GROUP BY topic_id, partition) s WHERE p.topic_id = s.topic_id AND p.partition = s.partition;
)sql",
    // 19: scripted faults shared by every broker (--faults, app/pg_fault_store.h): the rule (topic and client
    // id as bytes), the count left (NULL: until cleared), every broker's injections, when it was added.
    R"sql(
CREATE TABLE ketch_faults (id bigserial PRIMARY KEY, kind text NOT NULL, api_key smallint, topic bytea,
    partition integer, client_id bytea, error_code smallint NOT NULL, duration_ms bigint NOT NULL, count bigint,
    remaining bigint, injected bigint NOT NULL DEFAULT 0, added_at timestamptz NOT NULL DEFAULT clock_timestamp());
)sql",
    // 20: each broker's use of each tenant's limits (app/cluster_tenant_usage.h): connections open, produce and
    // fetch bytes per second, replaced every heartbeat; the others' sums are each broker's share of the limits.
    R"sql(
CREATE TABLE ketch_tenant_usage (node_id integer NOT NULL, tenant text NOT NULL, connections bigint NOT NULL,
    produce_rate double precision NOT NULL, fetch_rate double precision NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (node_id, tenant));
)sql",
};

}  // namespace

std::span<const char* const> migrations_10_on() { return k_migrations_10_on; }

}  // namespace ketch::cluster
