// Cluster mode's shared security (docs/cluster.md "Security"): ACLs, SCRAM
// credentials, client quotas, delegation tokens and tenants in PostgreSQL
// (shared/pg_acl_store.h, pg_credential_store.h, pg_quota_store.h,
// pg_token_store.h; tenants: tenant::catalog over a pg_quota_store),
// reloaded when another broker's NOTIFY says they
// changed. Nothing on a single node.
#pragma once

#include "app/options.h"
#include "app/security_services.h"
#include "app/storage_engines.h"
#include "app/stores.h"

namespace ketch::app {

// With --cluster: the PostgreSQL stores into `st` (after the schema was
// migrated: storage_engines::topic_store), the credentials loaded. Throws
// std::runtime_error when PostgreSQL does not answer.
void open_cluster_security(stores& st, const options& opt);

// Until destroyed, `security` reloads the ACLs, credentials, quotas and tokens when
// another broker changed them (on the commit listener's thread). Declare it
// after `security`: it unregisters the reloads first (unless the shared log
// is gone already).
class cluster_security_follower {
public:
    cluster_security_follower(storage_engines& storage, stores& st, security_services& security);
    ~cluster_security_follower();
    cluster_security_follower(const cluster_security_follower&) = delete;
    cluster_security_follower& operator=(const cluster_security_follower&) = delete;

private:
    storage_engines& storage_;
};

}  // namespace ketch::app
