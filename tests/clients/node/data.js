'use strict'
// Record and offset commands of DRIVERS.md: produce with the kafkajs producer;
// consume and the offset lookups with kafkajs' own Cluster/Broker objects
// (see cluster.js and README.md for why).

const { CompressionTypes, Partitioners } = require('kafkajs')
const Batch = require('kafkajs/src/consumer/batch')
const { connectCluster, topicPartitions, byLeader, listOffsets } = require('./cluster')

const ACKS = { all: -1, '-1': -1, 1: 1, '1': 1, 0: 0, '0': 0 }
const COMPRESSION = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP }
const ISOLATION = { read_uncommitted: 0, read_committed: 1 }
const EARLIEST = -2
const LATEST = -1

const b64 = s => (s == null ? null : Buffer.from(s, 'base64'))
const toB64 = buf => (buf == null ? null : Buffer.from(buf).toString('base64'))

// Header list [[k, v], ...] -> kafkajs header object. kafkajs groups repeated
// keys into an array, so interleaved keys are re-ordered by first occurrence.
function headerObject(headers) {
  const obj = {}
  for (const [k, v] of headers || []) {
    const value = b64(v)
    if (!(k in obj)) obj[k] = value
    else if (Array.isArray(obj[k])) obj[k].push(value)
    else obj[k] = [obj[k], value]
  }
  return obj
}

function headerList(obj) {
  const out = []
  for (const [k, v] of Object.entries(obj || {})) {
    for (const value of Array.isArray(v) ? v : [v]) out.push([k, toB64(value)])
  }
  return out
}

function isolationLevel(args) {
  const level = ISOLATION[args.isolation_level || 'read_uncommitted']
  if (level === undefined) throw new Error(`bad isolation_level ${args.isolation_level}`)
  return level
}

async function produce(kafka, args, { options, errorName }) {
  const input = args.records || []
  if (input.some(r => (r.headers || []).some(([, v]) => v == null))) {
    // record/v0/index.js sizes header values with Buffer.byteLength(value)
    // before its null check, which throws a TypeError for null.
    return { unsupported: 'kafkajs 2.2.4 cannot encode a null header value' }
  }
  const compression = COMPRESSION[args.compression || 'none']
  if (compression === undefined) {
    return { unsupported: `kafkajs has no built-in ${args.compression} codec` }
  }
  const acks = ACKS[String(args.acks ?? 'all')]
  if (acks === undefined) throw new Error(`bad acks ${args.acks}`)

  // Records the partition kafkajs' default partitioner picks for each message.
  const chosen = new Map()
  const createPartitioner = () => {
    const inner = Partitioners.DefaultPartitioner()
    return arg => {
      const partition = inner(arg)
      chosen.set(arg.message, partition)
      return partition
    }
  }
  const producer = kafka.producer({ ...options, idempotent: !!args.idempotent, createPartitioner })
  await producer.connect()
  const messages = input.map(r => ({
    key: b64(r.key),
    value: b64(r.value),
    headers: headerObject(r.headers),
    timestamp: r.timestamp == null ? undefined : String(r.timestamp),
    partition: r.partition ?? undefined,
  }))
  try {
    let metadata
    try {
      metadata = await producer.send({ topic: args.topic, acks, compression, messages })
    } catch (e) {
      const error = errorName(e, args.topic)
      const records = messages.map(m => ({
        partition: m.partition ?? -1, // failed records report only an explicit partition
        offset: -1,
        timestamp: -1,
        error,
      }))
      return { records }
    }
    // kafkajs reports one base offset per partition; records of a partition
    // were appended in input order, so the k-th one has base offset + k.
    const seen = new Map()
    const records = messages.map((m, i) => {
      const partition = chosen.get(m) ?? m.partition
      const k = seen.get(partition) ?? 0
      seen.set(partition, k + 1)
      const meta = (metadata || []).find(x => x.partition === partition)
      if (!meta) {
        // kafkajs drops messages for a partition missing from the topic's
        // metadata without sending them or raising an error; with acks=0
        // there is no metadata for any partition.
        const error = acks === 0 ? null : 'UNKNOWN_TOPIC_OR_PARTITION'
        return { partition, offset: -1, timestamp: -1, error }
      }
      const logAppendTime = Number(meta.logAppendTime ?? -1)
      const base = Number(meta.baseOffset ?? meta.offset ?? -1)
      return {
        partition,
        offset: base < 0 ? -1 : base + k,
        timestamp: logAppendTime !== -1 ? logAppendTime : input[i].timestamp ?? -1,
        error: null,
      }
    })
    return { records }
  } finally {
    await producer.disconnect()
  }
}

// Start offset per partition for consume's "from".
async function startOffsets(cluster, topic, partitions, from, level) {
  const start = new Map()
  if (from && typeof from === 'object' && from.offset != null) {
    for (const p of partitions) start.set(p, Number(from.offset))
    return start
  }
  let query
  if (from === 'beginning' || from == null) query = EARLIEST
  else if (from === 'end') query = LATEST
  else if (typeof from === 'object' && from.timestamp != null) query = Number(from.timestamp)
  else throw new Error(`bad from ${JSON.stringify(from)}`)
  const found = await listOffsets(cluster, topic, Object.fromEntries(partitions.map(p => [p, query])), level)
  const missing = []
  for (const p of partitions) {
    const r = found.get(p)
    if (r && r.offset >= 0) start.set(p, r.offset)
    else missing.push(p)
  }
  if (missing.length > 0) {
    // No record at or after the timestamp: start at the end, as a consumer
    // that seeks with offsetsForTimes' answer falls back to.
    const end = await listOffsets(cluster, topic, Object.fromEntries(missing.map(p => [p, LATEST])), level)
    for (const p of missing) if (end.has(p)) start.set(p, end.get(p).offset)
  }
  return start
}

function recordOf(message, partition) {
  const logAppend = message.batchContext && message.batchContext.timestampType === 1
  return {
    partition,
    offset: Number(message.offset),
    key: toB64(message.key),
    value: toB64(message.value),
    headers: headerList(message.headers),
    timestamp: Number(message.timestamp),
    timestamp_type: logAppend ? 'LogAppendTime' : 'CreateTime',
  }
}

// Offset after the last record batch that contributed `messages`.
function nextOffset(messages, current) {
  let next = current
  for (const m of messages) {
    const ctx = m.batchContext || {}
    const end =
      ctx.firstOffset != null && ctx.lastOffsetDelta != null
        ? Number(ctx.firstOffset) + ctx.lastOffsetDelta + 1
        : Number(m.offset) + 1
    if (end > next) next = end
  }
  return next
}

// Assign-style consume without a consumer group: Fetch requests sent through
// kafkajs' Broker objects, results filtered by kafkajs' consumer Batch class
// (drops records below the fetch offset, control records and aborted
// transactions) exactly as its group consumer would.
async function consume(kafka, args, { errorName }) {
  const level = isolationLevel(args)
  const topic = args.topic
  const maxRecords = args.max_records ?? Number.MAX_SAFE_INTEGER
  const deadline = Date.now() + (args.timeout_ms ?? 10000)
  const cluster = await connectCluster(kafka, { isolationLevel: level })
  const records = []
  try {
    const all = await topicPartitions(cluster, topic)
    const partitions = args.partitions ?? all
    const position = await startOffsets(cluster, topic, partitions, args.from, level)
    while (records.length < maxRecords) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) break
      const groups = await byLeader(cluster, topic, [...position.keys()])
      if (groups.length === 0) break
      for (const { broker, partitions: ids } of groups) {
        const { responses } = await broker.fetch({
          isolationLevel: level,
          maxWaitTime: Math.max(0, Math.min(remaining, 500)),
          topics: [
            {
              topic,
              partitions: ids.map(p => ({
                partition: p,
                fetchOffset: String(position.get(p)),
                maxBytes: 1048576,
              })),
            },
          ],
        })
        for (const { partitions: datas } of responses) {
          for (const data of datas) {
            const fetched = position.get(data.partition)
            const batch = new Batch(topic, String(fetched), data)
            for (const m of batch.messages) records.push(recordOf(m, data.partition))
            position.set(data.partition, nextOffset(batch.messagesWithinOffset, fetched))
          }
        }
      }
    }
  } catch (e) {
    if (e.name === 'KafkaJSNotImplemented') {
      // kafkajs 2.2.4 decodes only gzip batches without codec plugins.
      return { unsupported: `kafkajs: ${e.message}` }
    }
    return { records: records.slice(0, maxRecords), error: errorName(e, topic) }
  } finally {
    await cluster.disconnect()
  }
  return { records: records.slice(0, maxRecords) }
}

// One ListOffsets request per partition so that an error (kafkajs reports only
// the first of a response) is attributed to its partition. `query(p)` gives
// the timestamp query; `shape(r)` turns the answer into the output value.
async function offsetsPerPartition(kafka, args, partitionsOf, query, shape, errorName) {
  const level = isolationLevel(args)
  const cluster = await connectCluster(kafka, { isolationLevel: level })
  const offsets = {}
  const errors = {}
  try {
    for (const p of await partitionsOf(cluster)) {
      try {
        const r = (await listOffsets(cluster, args.topic, { [p]: query(p) }, level)).get(p)
        offsets[p] = r ? shape(r) : null
      } catch (e) {
        offsets[p] = null
        errors[p] = errorName(e, args.topic)
      }
    }
  } catch (e) {
    return { offsets, error: errorName(e, args.topic) }
  } finally {
    await cluster.disconnect()
  }
  return Object.keys(errors).length > 0 ? { offsets, errors } : { offsets }
}

async function offsetsForTimes(kafka, args, { errorName }) {
  const timestamps = args.timestamps || {}
  return offsetsPerPartition(
    kafka,
    args,
    async cluster => {
      await cluster.addTargetTopic(args.topic)
      return Object.keys(timestamps).map(Number)
    },
    p => Number(timestamps[p]),
    r => (r.offset < 0 ? null : { offset: r.offset, timestamp: r.timestamp }),
    errorName
  )
}

async function listOffsetsCommand(kafka, args, { errorName }) {
  const spec = args.spec || 'latest'
  if (spec === 'max_timestamp') {
    return { unsupported: 'kafkajs 2.2.4 sends ListOffsets v3 at most; max_timestamp needs v7' }
  }
  const query = { earliest: EARLIEST, latest: LATEST }[spec]
  if (query === undefined) throw new Error(`bad spec ${spec}`)
  return offsetsPerPartition(
    kafka,
    args,
    async cluster => {
      const all = await topicPartitions(cluster, args.topic)
      return args.partitions ?? all
    },
    () => query,
    r => r.offset,
    errorName
  )
}

module.exports = { produce, consume, offsetsForTimes, listOffsets: listOffsetsCommand }
