// Cluster mode's PostgreSQL schema, migrations 1 to 9: the first schema of
// each part (membership, the shared log, topics, groups, transactions,
// security). migrations.cc joins the ranges into migrations().
#include "cluster/migrations.h"

namespace ketch::cluster {

namespace {

// Never edit a migration that has shipped: add the next one (migrations_10_on.cc).
constexpr const char* k_migrations_1_to_9[] = {
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
};

}  // namespace

std::span<const char* const> migrations_1_to_9() { return k_migrations_1_to_9; }

}  // namespace ketch::cluster
