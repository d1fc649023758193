'use strict'
// The ACL commands of DRIVERS.md (create-acls, describe-acls, delete-acls),
// done with the kafkajs admin client. kafkajs' createAcls answers one boolean
// for a whole request, so each ACL goes in a request of its own.

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = require('kafkajs')

async function withAdmin(kafka, fn) {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return await fn(admin)
  } finally {
    await admin.disconnect()
  }
}

const nameOf = (table, code) => Object.keys(table).find(k => table[k] === code)

function entry(a) {
  return {
    resourceType: AclResourceTypes[a.resource_type || 'UNKNOWN'],
    resourceName: a.name,
    resourcePatternType: ResourcePatternTypes[a.pattern || 'LITERAL'],
    principal: a.principal,
    host: a.host ?? '*',
    operation: AclOperationTypes[a.operation || 'UNKNOWN'],
    permissionType: AclPermissionTypes[a.permission || 'UNKNOWN'],
  }
}

function filter(f) {
  return {
    resourceType: AclResourceTypes[f.resource_type || 'ANY'],
    resourceName: f.name ?? undefined,
    resourcePatternType: ResourcePatternTypes[f.pattern || 'ANY'],
    principal: f.principal ?? undefined,
    host: f.host ?? undefined,
    operation: AclOperationTypes[f.operation || 'ANY'],
    permissionType: AclPermissionTypes[f.permission || 'ANY'],
  }
}

function toJson(resource, acl) {
  return {
    resource_type: nameOf(AclResourceTypes, resource.resourceType),
    name: resource.resourceName,
    pattern: nameOf(ResourcePatternTypes, resource.resourcePatternType),
    principal: acl.principal,
    host: acl.host,
    operation: nameOf(AclOperationTypes, acl.operation),
    permission: nameOf(AclPermissionTypes, acl.permissionType),
  }
}

const sorted = list => list.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))

async function createAcls(kafka, args, { errorName }) {
  return withAdmin(kafka, async admin => {
    const results = []
    for (const a of args.acls || []) {
      let error = null
      try {
        await admin.createAcls({ acl: [entry(a)] })
      } catch (e) {
        error = errorName(e)
      }
      results.push({ error })
    }
    return { results }
  })
}

async function describeAcls(kafka, args, { errorName }) {
  return withAdmin(kafka, async admin => {
    try {
      const r = await admin.describeAcls(filter(args.filter || {}))
      const acls = []
      for (const res of r.resources) for (const acl of res.acls) acls.push(toJson(res, acl))
      return { error: null, acls: sorted(acls) }
    } catch (e) {
      return { error: errorName(e), acls: [] }
    }
  })
}

async function deleteAcls(kafka, args, { errorName }) {
  return withAdmin(kafka, async admin => {
    try {
      const r = await admin.deleteAcls({ filters: (args.filters || []).map(filter) })
      return {
        results: r.filterResponses.map(fr => ({
          error: fr.errorCode ? errorName({ name: 'KafkaJSProtocolError', code: fr.errorCode }) : null,
          deleted: sorted(fr.matchingAcls.map(m => toJson(m, m))),
        })),
      }
    } catch (e) {
      const error = errorName(e)
      return { results: (args.filters || []).map(() => ({ error, deleted: [] })) }
    }
  })
}

module.exports = { createAcls, describeAcls, deleteAcls }
