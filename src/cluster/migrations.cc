// The numbered migrations of cluster mode's PostgreSQL schema (cluster/schema.h:
// migrations()[i] takes the schema from version i to i + 1).
#include "cluster/schema.h"

namespace ketch::cluster {

namespace {

// Never edit a migration that has shipped: add the next one.
constexpr const char* k_migrations[] = {
    // 1: the cluster's id, brokers and their listeners (membership).
    R"sql(
CREATE TABLE ketch_cluster (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    cluster_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ketch_brokers (
    node_id integer PRIMARY KEY,
    incarnation text NOT NULL,
    rack text,
    registered_at timestamptz NOT NULL DEFAULT now(),
    last_heartbeat timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ketch_brokers_last_heartbeat ON ketch_brokers (last_heartbeat);
CREATE TABLE ketch_broker_endpoints (
    node_id integer NOT NULL REFERENCES ketch_brokers (node_id) ON DELETE CASCADE,
    listener text NOT NULL,
    host text NOT NULL,
    port integer NOT NULL CHECK (port BETWEEN 0 AND 65535),
    PRIMARY KEY (node_id, listener)
);
)sql",
    // 2: the shared log's catalogue (docs/design/cluster.md, "the produce path"):
    // partitions' offsets, objects, the batch index, producers' last batches.
    R"sql(
CREATE TABLE ketch_partitions (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    log_start_offset bigint NOT NULL DEFAULT 0,
    high_watermark bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (topic_id, partition)
);
CREATE TABLE ketch_objects (
    object_key text PRIMARY KEY,
    size_bytes bigint NOT NULL,
    node_id integer NOT NULL,
    committed_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ketch_batches (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    base_offset bigint NOT NULL,
    last_offset bigint NOT NULL,
    object_key text NOT NULL REFERENCES ketch_objects (object_key),
    byte_offset bigint NOT NULL,
    byte_length integer NOT NULL,
    max_timestamp bigint NOT NULL,
    PRIMARY KEY (topic_id, partition, base_offset)
);
CREATE INDEX ketch_batches_object ON ketch_batches (object_key);
CREATE TABLE ketch_producer_batches (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    producer_id bigint NOT NULL,
    producer_epoch smallint NOT NULL,
    first_seq integer NOT NULL,
    last_seq integer NOT NULL,
    base_offset bigint NOT NULL,
    last_offset bigint NOT NULL,
    PRIMARY KEY (topic_id, partition, producer_id, base_offset)
);
)sql",
    // 3: topics shared by every broker (CreateTopics on one is Metadata on
    // all), and producer ids handed out in blocks unique across brokers.
    R"sql(
CREATE TABLE ketch_topics (
    topic_id text PRIMARY KEY,
    name text NOT NULL UNIQUE,
    partitions integer NOT NULL,
    replication_factor smallint NOT NULL,
    created_ms bigint NOT NULL
);
CREATE TABLE ketch_topic_configs (
    topic_id text NOT NULL REFERENCES ketch_topics (topic_id) ON DELETE CASCADE,
    name text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (topic_id, name)
);
CREATE SEQUENCE ketch_producer_id_blocks;
)sql",
    // 4: consumer groups' committed offsets and group rows, shared so that a
    // group keeps them when its coordinator moves to another broker
    // (shared/pg_offset_store.h). Names are bytea: Kafka strings may hold
    // any bytes.
    R"sql(
CREATE TABLE ketch_group_offsets (
    group_id bytea NOT NULL,
    topic bytea NOT NULL,
    partition integer NOT NULL,
    committed_offset bigint NOT NULL,
    leader_epoch integer NOT NULL,
    metadata bytea NOT NULL,
    commit_ms bigint NOT NULL,
    expire_ms bigint,
    PRIMARY KEY (group_id, topic, partition)
);
CREATE TABLE ketch_groups (
    group_id bytea PRIMARY KEY,
    protocol_type bytea NOT NULL,
    generation integer NOT NULL,
    empty_since_ms bigint,
    state bytea NOT NULL
);
)sql",
    // 5: fenced group ownership (shared/pg_offset_store.h "leases"): the
    // broker serving a group holds its lease; taking it bumps the epoch, and
    // every write of the group's offsets or row checks the holder's epoch in
    // its own transaction.
    R"sql(
CREATE TABLE ketch_group_leases (
    group_id bytea PRIMARY KEY,
    node_id integer NOT NULL,
    incarnation text NOT NULL,
    epoch bigint NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now()
);
)sql",
    // 6: the sweeper's claims (shared/sweeper.h): an orphan is recorded as
    // swept before its DELETE, so a commit of it that comes later still
    // fails on the key instead of recording an object that is gone.
    R"sql(
ALTER TABLE ketch_objects ADD COLUMN swept boolean NOT NULL DEFAULT false;
)sql",
    // 7: transactions in the shared log (docs/design/cluster.md
    // "transactions"): each partition's open transactions (their first
    // offsets give the LSO) and aborted ranges (read_committed fetches),
    // both written by the flush's commit; the coordinators' state (Kafka's
    // __transaction_state) and the pending transactional offsets, and a
    // lease per transactional id as groups have.
    R"sql(
CREATE TABLE ketch_txn_open (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    producer_id bigint NOT NULL,
    first_offset bigint NOT NULL,
    PRIMARY KEY (topic_id, partition, producer_id)
);
CREATE TABLE ketch_aborted_txns (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    producer_id bigint NOT NULL,
    first_offset bigint NOT NULL,
    last_offset bigint NOT NULL,
    PRIMARY KEY (topic_id, partition, last_offset)
);
CREATE TABLE ketch_txns (
    transactional_id bytea PRIMARY KEY,
    producer_id bigint NOT NULL,
    previous_producer_id bigint NOT NULL,
    producer_epoch smallint NOT NULL,
    last_producer_epoch smallint NOT NULL,
    timeout_ms integer NOT NULL,
    state smallint NOT NULL,
    partitions bytea NOT NULL,
    txn_start_ms bigint NOT NULL,
    last_update_ms bigint NOT NULL,
    next_producer_id bigint NOT NULL,
    client_txn_version smallint NOT NULL
);
CREATE TABLE ketch_txn_offsets (
    producer_id bigint NOT NULL,
    group_id bytea NOT NULL,
    topic bytea NOT NULL,
    partition integer NOT NULL,
    committed_offset bigint NOT NULL,
    leader_epoch integer NOT NULL,
    metadata bytea NOT NULL,
    commit_ms bigint NOT NULL,
    expire_ms bigint,
    PRIMARY KEY (producer_id, group_id, topic, partition)
);
CREATE TABLE ketch_txn_leases (
    transactional_id bytea PRIMARY KEY,
    node_id integer NOT NULL,
    incarnation text NOT NULL,
    epoch bigint NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now()
);
)sql",
    // 8: the coordinator epoch of the last end-transaction marker of each
    // producer on each partition (Kafka's ProducerStateEntry.coordinatorEpoch):
    // a marker of an older one (a coordinator that lost the id's lease) is
    // refused once a newer one wrote there.
    R"sql(
CREATE TABLE ketch_txn_marker_epochs (
    topic_id text NOT NULL,
    partition integer NOT NULL,
    producer_id bigint NOT NULL,
    coordinator_epoch integer NOT NULL,
    PRIMARY KEY (topic_id, partition, producer_id)
);
)sql",
    // 9: security shared by every broker (shared/pg_acl_store.h,
    // pg_credential_store.h, pg_quota_store.h): ACL bindings with Kafka's
    // numeric codes, SCRAM credentials (salt, StoredKey, ServerKey, never a
    // password) and client quotas (the entity encoded as bytes).
    R"sql(
CREATE TABLE ketch_acls (
    resource_type smallint NOT NULL,
    resource_name bytea NOT NULL,
    pattern_type smallint NOT NULL,
    principal bytea NOT NULL,
    host bytea NOT NULL,
    operation smallint NOT NULL,
    permission smallint NOT NULL,
    PRIMARY KEY (resource_type, resource_name, pattern_type, principal, host, operation, permission)
);
CREATE TABLE ketch_scram_credentials (
    user_name bytea NOT NULL,
    mechanism text NOT NULL,
    salt bytea NOT NULL,
    stored_key bytea NOT NULL,
    server_key bytea NOT NULL,
    iterations integer NOT NULL,
    PRIMARY KEY (user_name, mechanism)
);
CREATE TABLE ketch_client_quotas (
    entity bytea NOT NULL,
    key text NOT NULL,
    value double precision NOT NULL,
    PRIMARY KEY (entity, key)
);
)sql",
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

std::span<const char* const> migrations() { return k_migrations; }

}  // namespace ketch::cluster
