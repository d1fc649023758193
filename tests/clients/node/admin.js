'use strict'
// Topic and cluster commands of DRIVERS.md, done with the kafkajs admin client.

const { connectCluster } = require('./cluster')

async function withAdmin(kafka, adminOptions, fn) {
  const admin = kafka.admin(adminOptions)
  await admin.connect()
  try {
    return await fn(admin)
  } finally {
    await admin.disconnect()
  }
}

function topicSpec(t) {
  return {
    topic: t.name,
    numPartitions: t.partitions ?? -1,
    replicationFactor: t.replication_factor ?? -1,
    configEntries: Object.entries(t.configs || {}).map(([name, value]) => ({
      name,
      value: String(value),
    })),
  }
}

// One CreateTopics request per topic, in input order: kafkajs' createTopics
// returns a bare `false` when every failed topic was TOPIC_ALREADY_EXISTS, so
// only single-topic calls can tell which topic already existed.
async function createTopics(kafka, args, { errorName }) {
  const validateOnly = !!args.validate_only
  return withAdmin(kafka, {}, async admin => {
    const results = []
    for (const t of args.topics || []) {
      let error = null
      try {
        const created = await admin.createTopics({
          topics: [topicSpec(t)],
          validateOnly,
          // Waiting for leaders of a validate-only topic would wait for a
          // topic that does not exist.
          waitForLeaders: !validateOnly,
          timeout: args.timeout_ms,
        })
        if (created === false) error = 'TOPIC_ALREADY_EXISTS'
      } catch (e) {
        error = errorName(e, t.name)
      }
      results.push({ name: t.name, error })
    }
    return { results }
  })
}

// kafkajs' listTopics drops the isInternal flag of the Metadata response, so
// this asks the library's Cluster for the raw metadata of all topics.
async function listTopics(kafka) {
  const cluster = await connectCluster(kafka)
  try {
    const { topicMetadata } = await cluster.metadata()
    const topics = {}
    for (const t of topicMetadata) {
      if (!t.isInternal) topics[t.topic] = t.partitionMetadata.length
    }
    return { topics }
  } finally {
    await cluster.disconnect()
  }
}

// One metadata lookup per topic: kafkajs throws the first topic error of a
// Metadata response without saying which topic it belongs to.
async function describeTopics(kafka, args, { errorName }) {
  return withAdmin(kafka, {}, async admin => {
    const topics = []
    for (const name of args.topics || []) {
      try {
        const { topics: found } = await admin.fetchTopicMetadata({ topics: [name] })
        const t = found.find(x => x.name === name)
        const partitions = (t ? t.partitions : [])
          .map(p => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
          .sort((a, b) => a.partition - b.partition)
        topics.push({ name, error: null, partitions })
      } catch (e) {
        topics.push({ name, error: errorName(e, name), partitions: [] })
      }
    }
    return { topics }
  })
}

// One DeleteTopics request per topic (kafkajs reports only the first error of
// a response, unattributed). Retries are off: kafkajs treats
// UNKNOWN_TOPIC_OR_PARTITION from DeleteTopics as retriable and would retry
// the definitive answer for ~10 s before surfacing it.
async function deleteTopics(kafka, args, { errorName }) {
  return withAdmin(kafka, { retry: { retries: 0 } }, async admin => {
    const results = []
    for (const name of args.topics || []) {
      let error = null
      try {
        await admin.deleteTopics({ topics: [name], timeout: args.timeout_ms })
      } catch (e) {
        error = errorName(e, name)
      }
      results.push({ name, error })
    }
    return { results }
  })
}

async function describeCluster(kafka) {
  return withAdmin(kafka, {}, async admin => {
    const { brokers, controller, clusterId } = await admin.describeCluster()
    return {
      cluster_id: clusterId,
      controller,
      brokers: brokers
        .map(b => ({ id: b.nodeId, host: b.host, port: b.port }))
        .sort((a, b) => a.id - b.id),
    }
  })
}

module.exports = { createTopics, listTopics, describeTopics, deleteTopics, describeCluster }
