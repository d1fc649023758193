'use strict'
// Maps a kafkajs error to the name of Kafka's error code (Errors enum).

const KAFKA_ERRORS = require('./kafka_errors')

// Client-side conditions reported as the Kafka error a Java client would
// surface for them.
const CLIENT_ERRORS = {
  KafkaJSRequestTimeoutError: 'REQUEST_TIMED_OUT',
  KafkaJSTimeout: 'REQUEST_TIMED_OUT',
  KafkaJSConnectionError: 'NETWORK_EXCEPTION',
  KafkaJSConnectionClosedError: 'NETWORK_EXCEPTION',
}

// Returns the Kafka error name carried by `e` (following kafkajs' wrapping:
// retry wrappers keep the original in `.cause`, aggregate errors list one
// error per topic in `.errors`). `topic` picks the matching entry of an
// aggregate. Returns null when `e` carries no Kafka error at all.
function findErrorName(e, topic, depth = 0) {
  if (!e || depth > 8) return null
  if (Array.isArray(e.errors) && e.errors.length > 0) {
    const match = e.errors.find(x => x && x.topic === topic) || e.errors[0]
    const name = findErrorName(match, topic, depth + 1)
    if (name) return name
  }
  if (typeof e.code === 'number' && e.name && e.name.startsWith('KafkaJS')) {
    if (KAFKA_ERRORS.has(e.code)) return KAFKA_ERRORS.get(e.code)
    return `UNKNOWN_ERROR_CODE_${e.code}`
  }
  const viaCause = findErrorName(e.cause || e.originalError, topic, depth + 1)
  if (viaCause) return viaCause
  return CLIENT_ERRORS[e.name] || null
}

// Like findErrorName, but an error with no Kafka meaning (a bug, a bad
// argument, kafkajs rejecting the request client-side) is re-thrown so the
// driver fails loudly instead of inventing an error name.
function errorName(e, topic) {
  const name = findErrorName(e, topic)
  if (name === null) throw e
  return name
}

function errorForCode(code) {
  if (!code) return null
  return KAFKA_ERRORS.get(code) || `UNKNOWN_ERROR_CODE_${code}`
}

module.exports = { errorName, errorForCode }
