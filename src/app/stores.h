// The data directory's SQLite stores (<data-dir>/*.db), opened at start-up.
#pragma once

#include <filesystem>
#include <memory>

#include "meta/sqlite_acl_store.h"
#include "meta/sqlite_credential_store.h"
#include "meta/sqlite_offset_store.h"
#include "meta/sqlite_quota_store.h"
#include "meta/sqlite_share_store.h"
#include "meta/sqlite_store.h"
#include "meta/sqlite_token_store.h"
#include "meta/sqlite_txn_store.h"
#include "shared/pg_acl_store.h"
#include "shared/pg_credential_store.h"
#include "shared/pg_quota_store.h"
#include "shared/pg_token_store.h"

namespace ketch::app {

struct stores {
    std::unique_ptr<meta::store> meta;                    // meta.db: topics, configs
    std::unique_ptr<meta::offset_store> offsets;          // offsets.db: committed offsets
    std::unique_ptr<meta::credential_store> credentials;  // credentials.db: SCRAM
    std::unique_ptr<meta::acl_store> acls;                // acls.db
    std::unique_ptr<meta::quota_store> quotas;            // quotas.db: client quotas
    std::unique_ptr<meta::txn_store> txns;                // txn.db: transactions
    std::unique_ptr<meta::share_store> shares;            // shares.db: share groups' delivery state
    std::unique_ptr<meta::token_store> tokens;            // tokens.db: delegation tokens
    // Cluster mode: the broker's PostgreSQL connections (run_broker owns it;
    // --cluster-pg-connections); null on a single node. Set by run_broker.
    cluster::pg_pool* cluster_pg = nullptr;
    // Cluster mode: topics in PostgreSQL (shared/pg_topic_store.h, over meta
    // for the rest); null on a single node. Set by run_broker.
    std::unique_ptr<meta::store> cluster_topics;
    // Where topics and configs (named config resources too) are kept:
    // PostgreSQL in cluster mode, meta.db otherwise.
    meta::store& configs() { return cluster_topics ? *cluster_topics : *meta; }
    // Cluster mode: ACLs, SCRAM credentials and client quotas in PostgreSQL,
    // shared by every broker (instead of acls.db, credentials.db and
    // quotas.db); null on a single node. Set by run_broker.
    std::unique_ptr<meta::acl_store> cluster_acls;
    std::unique_ptr<shared::pg_credential_store> cluster_credentials;
    std::unique_ptr<shared::pg_quota_store> cluster_quotas;
    // Cluster mode: delegation tokens in PostgreSQL (instead of tokens.db).
    std::unique_ptr<meta::token_store> cluster_tokens;

    // The stores the broker uses: the cluster's when set, else the data directory's.
    meta::acl_store& acls_in_use() { return cluster_acls ? *cluster_acls : *acls; }
    meta::quota_store& quotas_in_use() {
        return cluster_quotas ? static_cast<meta::quota_store&>(*cluster_quotas) : *quotas;
    }
    meta::token_store& tokens_in_use() { return cluster_tokens ? *cluster_tokens : *tokens; }
    meta::credential_store& credentials_in_use() {
        return cluster_credentials ? static_cast<meta::credential_store&>(*cluster_credentials) : *credentials;
    }

    // Opens (creating what is missing) every store; throws std::runtime_error
    // naming the store that failed.
    static stores open(const std::filesystem::path& data_dir);
};

}  // namespace ketch::app
