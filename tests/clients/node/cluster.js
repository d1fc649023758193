'use strict'
// Access to kafkajs' own Cluster object for the few lookups its public API
// does not expose (the isInternal flag of topic metadata, ListOffsets results
// with their timestamps, assign-style Fetch without a consumer group).
//
// The Cluster is built by the Kafka client's private factory, so it uses the
// same brokers, timeouts, retry settings and logger as the public clients, and
// all requests still go through kafkajs' protocol encoders/decoders. The
// factory is found by its symbol description; kafkajs is pinned to an exact
// version in package.json, so this cannot change underneath the driver.

const CREATE_CLUSTER = 'private:Kafka:createCluster'

async function connectCluster(kafka, { isolationLevel = 0 } = {}) {
  const symbol = Object.getOwnPropertySymbols(kafka).find(s => s.description === CREATE_CLUSTER)
  if (!symbol) throw new Error(`kafkajs has no ${CREATE_CLUSTER} (version changed?)`)
  const cluster = kafka[symbol]({ allowAutoTopicCreation: false, isolationLevel })
  await cluster.connect()
  return cluster
}

// Loads metadata for `topic` and returns its partition ids in ascending order.
async function topicPartitions(cluster, topic) {
  await cluster.addTargetTopic(topic)
  return cluster
    .findTopicPartitionMetadata(topic)
    .map(p => p.partitionId)
    .sort((a, b) => a - b)
}

// Groups `partitions` of `topic` by leader: [{ broker, partitions: [ids] }].
// Partitions without metadata are left out.
async function byLeader(cluster, topic, partitions) {
  const perLeader = cluster.findLeaderForPartitions(topic, partitions)
  const groups = []
  for (const [nodeId, ids] of Object.entries(perLeader)) {
    const broker = await cluster.findBroker({ nodeId: Number(nodeId) })
    groups.push({ broker, partitions: ids })
  }
  return groups
}

// ListOffsets for `topic`: `timestamps` maps partition id -> timestamp query
// (-2 earliest, -1 latest, or a time in ms). Returns a Map partition ->
// { offset, timestamp, errorCode } with numbers; partitions with no leader in
// metadata are absent. A partition error reaches the caller as the exception
// kafkajs throws for it (its decoder reports only the first error).
async function listOffsets(cluster, topic, timestamps, isolationLevel) {
  const partitions = Object.keys(timestamps).map(Number)
  const result = new Map()
  for (const { broker, partitions: ids } of await byLeader(cluster, topic, partitions)) {
    const { responses } = await broker.listOffsets({
      isolationLevel,
      topics: [{ topic, partitions: ids.map(partition => ({ partition, timestamp: timestamps[partition] })) }],
    })
    for (const response of responses) {
      for (const p of response.partitions) {
        result.set(p.partition, {
          offset: Number(p.offset),
          timestamp: p.timestamp === undefined ? -1 : Number(p.timestamp),
          errorCode: p.errorCode,
        })
      }
    }
  }
  return result
}

module.exports = { connectCluster, topicPartitions, byLeader, listOffsets }
