'use strict'
// Transactional commands of DRIVERS.md with the kafkajs producer:
// txn-produce and txn-fence. txn-transform is unsupported (kafkajs has no
// read_committed group consumer loop to pair with sendOffsets here).

const b64d = s => (s == null ? null : Buffer.from(s, 'base64'))

function txnProducer(kafka, id) {
  return kafka.producer({ transactionalId: id, idempotent: true, maxInFlightRequests: 1 })
}

function byTopic(records) {
  const topics = new Map()
  for (const r of records) {
    if (!topics.has(r.topic)) topics.set(r.topic, [])
    const m = { key: b64d(r.key), value: b64d(r.value) }
    if (r.partition != null) m.partition = r.partition
    topics.get(r.topic).push(m)
  }
  return [...topics].map(([topic, messages]) => ({ topic, messages }))
}

async function txnProduce(kafka, args, { errorName }) {
  const producer = txnProducer(kafka, args.transactional_id)
  await producer.connect()
  const out = []
  try {
    for (const t of args.transactions) {
      const txn = await producer.transaction()
      try {
        await txn.sendBatch({ topicMessages: byTopic(t.records) })
        if (t.commit === false) await txn.abort()
        else await txn.commit()
        out.push({ error: null })
      } catch (e) {
        out.push({ error: errorName(e) })
        if (txn.isActive()) await txn.abort().catch(() => {})
        break
      }
    }
  } finally {
    await producer.disconnect()
  }
  return { transactions: out }
}

async function txnFence(kafka, args, { errorName }) {
  const record = { topic: args.topic, partition: 0, key: null, value: Buffer.from('fenced').toString('base64') }
  const first = txnProducer(kafka, args.transactional_id)
  const second = txnProducer(kafka, args.transactional_id)
  await first.connect()
  const txn1 = await first.transaction()
  await txn1.sendBatch({ topicMessages: byTopic([record]) })
  await second.connect()
  // kafkajs sends InitProducerId when the first transaction begins: this fences `first`.
  let txn2 = null
  let secondError = null
  try {
    txn2 = await second.transaction()
  } catch (e) {
    secondError = errorName(e)
  }
  let firstError = null
  try {
    await txn1.commit()
  } catch (e) {
    firstError = errorName(e)
  }
  if (txn2) {
    try {
      await txn2.sendBatch({ topicMessages: byTopic([{ ...record, value: Buffer.from('second').toString('base64') }]) })
      await txn2.commit()
    } catch (e) {
      secondError = errorName(e)
    }
  }
  await first.disconnect().catch(() => {})
  await second.disconnect()
  return { first_error: firstError, second_error: secondError }
}

async function txnTransform() {
  return { unsupported: 'kafkajs driver: txn-transform is done with the Java and confluent drivers' }
}

module.exports = { txnProduce, txnFence, txnTransform }
