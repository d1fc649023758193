'use strict'
// Config and partition commands of DRIVERS.md with the kafkajs admin client:
// describe-configs, alter-configs, create-partitions. kafkajs has no
// IncrementalAlterConfigs call, so incremental-alter-configs is unsupported.

const { ConfigResourceTypes } = require('kafkajs')

const SOURCES = {
  0: 'UNKNOWN',
  1: 'DYNAMIC_TOPIC_CONFIG',
  2: 'DYNAMIC_BROKER_CONFIG',
  3: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  4: 'STATIC_BROKER_CONFIG',
  5: 'DEFAULT_CONFIG',
  6: 'DYNAMIC_BROKER_LOGGER_CONFIG',
}

function resourceType(args) {
  return (args.resource || 'topic') === 'topic' ? ConfigResourceTypes.TOPIC : ConfigResourceTypes.BROKER
}

async function withAdmin(kafka, fn) {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return await fn(admin)
  } finally {
    await admin.disconnect()
  }
}

// kafkajs accepts only its ACL resource types (GROUP = 3 there), not the
// GROUP config resource type (32).
const NO_GROUP = { unsupported: 'kafkajs has no GROUP config resource' }

async function describeConfigs(kafka, args, { errorName }) {
  if (args.resource === 'group') return NO_GROUP
  return withAdmin(kafka, async admin => {
    let r
    try {
      r = await admin.describeConfigs({
        includeSynonyms: !!args.synonyms,
        resources: [{ type: resourceType(args), name: args.name, configNames: args.keys || undefined }],
      })
    } catch (e) {
      return { error: errorName(e, args.name), configs: {} }
    }
    const res = r.resources[0]
    if (res.errorCode) return { error: errorName({ name: 'KafkaJSProtocolError', code: res.errorCode }), configs: {} }
    const configs = {}
    for (const c of res.configEntries) {
      configs[c.configName] = {
        value: c.configValue,
        source: SOURCES[c.configSource] || String(c.configSource),
        read_only: !!c.readOnly,
        sensitive: !!c.isSensitive,
      }
      if (args.synonyms)
        configs[c.configName].synonyms = (c.configSynonyms || []).map(s => [
          s.configName,
          s.configValue,
          SOURCES[s.configSource] || String(s.configSource),
        ])
    }
    return { error: null, configs }
  })
}

async function alterConfigs(kafka, args, { errorName }) {
  if (args.resource === 'group') return NO_GROUP
  return withAdmin(kafka, async admin => {
    try {
      const r = await admin.alterConfigs({
        validateOnly: !!args.validate_only,
        resources: [
          {
            type: resourceType(args),
            name: args.name,
            configEntries: Object.entries(args.configs || {}).map(([name, value]) => ({ name, value: String(value) })),
          },
        ],
      })
      const res = r.resources[0]
      if (res.errorCode) return { error: errorName({ name: 'KafkaJSProtocolError', code: res.errorCode }) }
      return { error: null }
    } catch (e) {
      return { error: errorName(e, args.name) }
    }
  })
}

async function incrementalAlterConfigs() {
  return { unsupported: 'kafkajs has no IncrementalAlterConfigs call' }
}

async function createPartitions(kafka, args, { errorName }) {
  return withAdmin(kafka, async admin => {
    try {
      await admin.createPartitions({
        validateOnly: !!args.validate_only,
        topicPartitions: [{ topic: args.topic, count: Number(args.count) }],
      })
      return { error: null }
    } catch (e) {
      return { error: errorName(e, args.topic) }
    }
  })
}

module.exports = { describeConfigs, alterConfigs, incrementalAlterConfigs, createPartitions }
