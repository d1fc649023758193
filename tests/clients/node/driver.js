#!/usr/bin/env node
'use strict'

const fs = require('fs')
// kafkajs client driver for the ketch client test matrix.
//
//   node driver.js --bootstrap HOST:PORT <command> '<json args>'
//
// Implements the command vocabulary of ../DRIVERS.md with kafkajs (pinned in
// package.json). Prints exactly one JSON object on stdout; kafkajs logs go to
// stderr. Exit 0 when the operation ran (Kafka error codes are reported in the
// JSON), non-zero when the driver itself failed. See README.md for the choices
// made where kafkajs has no direct equivalent of a command.

const { Kafka, logLevel } = require('kafkajs')
const { errorName } = require('./errors')
const acls = require('./acls')
const admin = require('./admin')
const configs = require('./configs')
const data = require('./data')
const group = require('./group')
const txn = require('./txn')
const schemaRegistry = require('./schema_registry')

const COMMANDS = {
  'create-acls': acls.createAcls,
  'describe-acls': acls.describeAcls,
  'delete-acls': acls.deleteAcls,
  'create-topics': admin.createTopics,
  'list-topics': admin.listTopics,
  'describe-topics': admin.describeTopics,
  'delete-topics': admin.deleteTopics,
  'describe-cluster': admin.describeCluster,
  'describe-configs': configs.describeConfigs,
  'alter-configs': configs.alterConfigs,
  'incremental-alter-configs': configs.incrementalAlterConfigs,
  'create-partitions': configs.createPartitions,
  produce: data.produce,
  consume: data.consume,
  'offsets-for-times': data.offsetsForTimes,
  'list-offsets': data.listOffsets,
  'group-consume': group.groupConsume,
  'describe-groups': group.describeGroups,
  'list-groups': group.listGroups,
  'committed-offsets': group.committedOffsets,
  'sr-roundtrip': schemaRegistry.srRoundtrip,
  'txn-produce': txn.txnProduce,
  'txn-fence': txn.txnFence,
  'txn-transform': txn.txnTransform,
}

// Java-style client properties accepted in "config", mapped to kafkajs
// client options. Any other key is passed to kafkajs unchanged, so kafkajs'
// own option names (e.g. "retry": {"retries": 0}) work too.
const PROPERTY_MAP = {
  'client.id': ['clientId', String],
  'request.timeout.ms': ['requestTimeout', Number],
  'socket.connection.setup.timeout.ms': ['connectionTimeout', Number],
  retries: ['retry', n => ({ retries: Number(n) })],
}

const LOG_LEVELS = {
  NOTHING: logLevel.NOTHING,
  ERROR: logLevel.ERROR,
  WARN: logLevel.WARN,
  INFO: logLevel.INFO,
  DEBUG: logLevel.DEBUG,
}

function usage(message) {
  process.stderr.write(
    `${message}\nusage: driver.js --bootstrap HOST:PORT <command> '<json args>'\n` +
      `commands: ${Object.keys(COMMANDS).join(', ')}\n`
  )
  process.exit(2)
}

function parseArgv(argv) {
  let bootstrap = null
  const rest = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--bootstrap') {
      bootstrap = argv[++i]
    } else if (argv[i].startsWith('--bootstrap=')) {
      bootstrap = argv[i].slice('--bootstrap='.length)
    } else {
      rest.push(argv[i])
    }
  }
  if (!bootstrap) usage('missing --bootstrap HOST:PORT')
  if (rest.length < 1 || rest.length > 2) usage('expected <command> and optional JSON args')
  const [command, json = '{}'] = rest
  if (!COMMANDS[command]) usage(`unknown command ${command}`)
  let args
  try {
    args = JSON.parse(json)
  } catch (e) {
    usage(`args are not valid JSON: ${e.message}`)
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    usage('args must be a JSON object')
  }
  return { bootstrap, command, args }
}

// kafkajs log entries as JSON lines on stderr; stdout carries only the result.
const stderrLogCreator = () => ({ namespace, level, label, log }) => {
  process.stderr.write(JSON.stringify({ level: label, namespace, ...log }) + '\n')
}

// Security properties (librdkafka / Java names) -> kafkajs' ssl and sasl
// options. Files are read here: kafkajs takes PEM contents, not paths.
const SECURITY_KEYS = new Set([
  'security.protocol', 'sasl.mechanism', 'sasl.mechanisms', 'sasl.username', 'sasl.password',
  'ssl.ca.location', 'ssl.certificate.location', 'ssl.key.location',
])

function securityOptions(config) {
  const c = config || {}
  const protocol = String(c['security.protocol'] || 'PLAINTEXT').toUpperCase()
  const out = {}
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    const ssl = {}
    if (c['ssl.ca.location']) ssl.ca = [fs.readFileSync(c['ssl.ca.location'], 'utf8')]
    if (c['ssl.certificate.location']) ssl.cert = fs.readFileSync(c['ssl.certificate.location'], 'utf8')
    if (c['ssl.key.location']) ssl.key = fs.readFileSync(c['ssl.key.location'], 'utf8')
    out.ssl = Object.keys(ssl).length ? ssl : true
  }
  if (protocol.startsWith('SASL_')) {
    out.sasl = {
      mechanism: String(c['sasl.mechanism'] || c['sasl.mechanisms'] || 'PLAIN').toLowerCase(),
      username: c['sasl.username'],
      password: c['sasl.password'],
    }
  }
  return out
}

function clientOptions(bootstrap, config) {
  const options = {
    clientId: 'ketch-kafkajs-driver',
    brokers: bootstrap.split(','),
    logLevel: LOG_LEVELS[process.env.KAFKAJS_LOG_LEVEL || 'ERROR'] ?? logLevel.ERROR,
    logCreator: stderrLogCreator,
  }
  Object.assign(options, securityOptions(config))
  for (const [key, value] of Object.entries(config || {})) {
    if (SECURITY_KEYS.has(key)) continue
    const mapped = PROPERTY_MAP[key]
    if (mapped) {
      options[mapped[0]] = mapped[1](value)
    } else {
      options[key] = value
    }
  }
  return options
}

function emit(result, code) {
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(code))
}

async function main() {
  const { bootstrap, command, args } = parseArgv(process.argv.slice(2))
  const options = clientOptions(bootstrap, args.config)
  const kafka = new Kafka(options)
  const result = await COMMANDS[command](kafka, args, { options, errorName })
  emit(result, 0)
}

main().catch(e => {
  process.stderr.write(`driver failed: ${(e && e.stack) || e}\n`)
  if (e && e.cause) process.stderr.write(`caused by: ${e.cause.stack || e.cause}\n`)
  process.exit(1)
})
