'use strict'
// Consumer-group commands of DRIVERS.md: group-consume with the kafkajs
// consumer; describe-groups, list-groups and committed-offsets with its admin.

const fs = require('fs')
const { AssignerProtocol } = require('kafkajs')
const { errorForCode } = require('./errors')

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const toB64 = buf => (buf == null ? null : Buffer.from(buf).toString('base64'))
const byPair = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])

// {topic: [partitions]} -> [[topic, partition], ...] sorted.
function pairs(byTopic) {
  const out = []
  for (const [topic, partitions] of Object.entries(byTopic || {})) {
    for (const p of partitions) out.push([topic, Number(p)])
  }
  return out.sort(byPair)
}

// The error name of a failed commit: Kafka's name when kafkajs' error carries
// a code, else the kafkajs error class (a commit refused client-side).
function commitError(e, errorName) {
  try {
    return errorName(e)
  } catch (_) {
    return (e && e.name) || String(e)
  }
}

// kafkajs speaks only the classic protocol, has no static membership and one
// built-in assignor (round robin), and is eager: every rebalance revokes all
// partitions, then GROUP_JOIN carries the whole new assignment. Each eachBatch
// call is one partition's batch, processed in chunks of max_poll_records
// (each chunk is one "poll" of the log), committed after each chunk.
async function groupConsume(kafka, args, { errorName }) {
  const commit = args.commit || 'sync'
  if ((args.protocol || 'classic') !== 'classic') {
    return { unsupported: 'kafkajs 2.2.4 speaks the classic group protocol only' }
  }
  if (args.instance_id != null) {
    return { unsupported: 'kafkajs 2.2.4 has no static membership (group.instance.id)' }
  }
  if (args.assignor != null && args.assignor !== 'roundrobin') {
    return { unsupported: `kafkajs 2.2.4 has no ${args.assignor} assignor (round robin only)` }
  }
  if (!['sync', 'auto', 'none'].includes(commit)) throw new Error(`bad commit ${commit}`)
  const topics = args.topics || [args.topic]
  const maxRecords = args.max_records ?? Number.MAX_SAFE_INTEGER
  const maxPoll = args.max_poll_records ?? 500
  const idleMs = args.idle_ms ?? 3000
  const processMs = args.process_ms ?? 0
  const deadline = Date.now() + (args.timeout_ms ?? 60000)
  const records = []
  const assignments = []
  const events = []
  const committed = {}
  let activeAt = null
  let stopping = false
  const left = () => maxRecords - records.length

  const shouldStop = () =>
    stopping ||
    left() <= 0 ||
    Date.now() >= deadline ||
    (activeAt !== null && Date.now() - activeAt >= idleMs) ||
    (args.stop_file != null && fs.existsSync(args.stop_file))

  const consumer = kafka.consumer({
    groupId: args.group,
    heartbeatInterval: 1000, // members notice a rebalance quickly
    maxWaitTimeInMs: 500,
  })
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const now = pairs(payload.memberAssignment)
    assignments.push(now)
    events.push(['assign', now])
    activeAt = Date.now()
  })
  await consumer.connect()
  let error = null
  try {
    await consumer.subscribe({ topics, fromBeginning: (args.from || 'earliest') === 'earliest' })
    await consumer.run({
      autoCommit: commit === 'auto',
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }) => {
        const messages = batch.messages
        let i = 0
        while (i < messages.length && isRunning() && !isStale()) {
          if (shouldStop()) {
            stopping = true
            return
          }
          const chunk = messages.slice(i, i + Math.min(maxPoll, left()))
          i += chunk.length
          for (const m of chunk) {
            records.push({
              topic: batch.topic,
              partition: batch.partition,
              offset: Number(m.offset),
              key: toB64(m.key),
              value: toB64(m.value),
            })
          }
          events.push(['poll', chunk.length])
          activeAt = Date.now()
          if (processMs > 0) await sleep(processMs)
          const last = chunk[chunk.length - 1].offset
          if (commit === 'sync') {
            const key = `${batch.topic}:${batch.partition}`
            const next = Number(last) + 1
            // commitOffsetsIfNecessary(offsets) commits exactly these, once, and
            // throws what the broker answered (commitOffsets would retry it).
            try {
              await commitOffsetsIfNecessary({
                topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: String(next) }] }],
              })
              committed[key] = next
              events.push(['commit', { [key]: next }, null])
            } catch (e) {
              events.push(['commit', { [key]: next }, commitError(e, errorName)])
              resolveOffset(last)
              return // the group is rebalancing: let kafkajs rejoin
            }
          }
          resolveOffset(last)
          await heartbeat()
        }
      },
    })
    while (!shouldStop()) await sleep(50)
    stopping = true
  } catch (e) {
    error = errorName(e)
  } finally {
    await consumer.disconnect() // stops the run and leaves the group; commits resolved offsets under "auto"
  }
  const out = { records, assignments, committed, events }
  if (error) out.error = error
  return out
}

function assignmentOf(buffer) {
  if (!buffer || buffer.length === 0) return []
  const decoded = AssignerProtocol.MemberAssignment.decode(buffer)
  return decoded ? pairs(decoded.assignment) : []
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

async function describeGroups(kafka, args) {
  return withAdmin(kafka, async admin => {
    const { groups } = await admin.describeGroups(args.groups || [])
    return {
      groups: (args.groups || []).map(name => {
        const g = groups.find(x => x.groupId === name)
        if (!g) {
          return { group_id: name, error: 'MISSING_FROM_RESPONSE', state: null, type: null, protocol_type: null, protocol: null, members: [] }
        }
        return {
          group_id: name,
          error: errorForCode(g.errorCode),
          state: g.state,
          type: null, // DescribeGroups does not say
          protocol_type: g.protocolType,
          protocol: g.protocol,
          members: g.members
            .map(m => ({
              member_id: m.memberId,
              instance_id: m.groupInstanceId ?? null,
              client_id: m.clientId,
              host: m.clientHost,
              assignment: assignmentOf(m.memberAssignment),
            }))
            .sort((a, b) => (a.member_id < b.member_id ? -1 : a.member_id > b.member_id ? 1 : 0)),
        }
      }),
    }
  })
}

// ListGroups v2 at most: no state and no type.
async function listGroups(kafka) {
  return withAdmin(kafka, async admin => {
    const { groups } = await admin.listGroups()
    return {
      groups: groups
        .map(g => ({ group_id: g.groupId, state: null, type: null, protocol_type: g.protocolType }))
        .sort((a, b) => (a.group_id < b.group_id ? -1 : a.group_id > b.group_id ? 1 : 0)),
    }
  })
}

async function committedOffsets(kafka, args) {
  return withAdmin(kafka, async admin => {
    const got = await admin.fetchOffsets({ groupId: args.group, topics: [args.topic] })
    const t = got.find(x => x.topic === args.topic) || { partitions: [] }
    const offsets = {}
    const wanted = args.partitions ?? t.partitions.map(p => p.partition).sort((a, b) => a - b)
    for (const p of wanted) {
      const found = t.partitions.find(x => x.partition === p)
      const offset = found ? Number(found.offset) : -1
      offsets[p] = offset >= 0 ? offset : -1
    }
    return { offsets }
  })
}

module.exports = { groupConsume, describeGroups, listGroups, committedOffsets }
