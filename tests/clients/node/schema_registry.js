// sr-roundtrip: @kafkajs/confluent-schema-registry against ketch's registry:
// register an Avro schema for <topic>-value, encode records (Confluent framing),
// produce them with kafkajs, consume them back and decode them through the id
// each frame carries (the library fetches the schema by id).
//
// args: {"registry": "http://host:port", "topic": "t", "schema": "<avro json>", "records": [{...}]}
// out:  {"id": N, "records": [{...}], "latest_version": V}
const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry')

async function srRoundtrip(kafka, args) {
  const subject = `${args.topic}-value`
  const writer = new SchemaRegistry({ host: args.registry })
  const { id } = await writer.register({ type: SchemaType.AVRO, schema: args.schema }, { subject })
  const producer = kafka.producer({ allowAutoTopicCreation: true })
  await producer.connect()
  const messages = []
  for (const r of args.records) messages.push({ value: await writer.encode(id, r) })
  await producer.send({ topic: args.topic, acks: -1, messages })
  await producer.disconnect()

  const reader = new SchemaRegistry({ host: args.registry }) // a fresh cache: decode looks the id up
  const consumer = kafka.consumer({ groupId: `g-${args.topic}` })
  await consumer.connect()
  await consumer.subscribe({ topic: args.topic, fromBeginning: true })
  const out = []
  await new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, 30000)
    consumer
      .run({
        eachMessage: async ({ message }) => {
          out.push(await reader.decode(message.value))
          if (out.length >= args.records.length) {
            clearTimeout(timer)
            resolve()
          }
        },
      })
      .catch(reject)
  })
  await consumer.disconnect()
  const latest = await reader.getLatestSchemaId(subject)
  return { id, records: out, latest_id: latest }
}

module.exports = { srRoundtrip }
