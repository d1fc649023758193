// The sweeper of cluster mode (docs/design/cluster.md, "sweeper"): an
// object is written before the commit that records it, so a broker that
// dies between the two leaves an object no commit references. The sweeper
// lists the objects under a prefix and deletes those older than a cutoff
// that ketch_objects does not know.
//
// Safe against a commit still under way whatever the clocks say: before
// deleting, the sweeper claims the key in ketch_objects (a row with
// swept = true, INSERT ... ON CONFLICT DO NOTHING). A commit inserts the
// same key: whichever comes first wins — a commit that comes later fails
// on the key (its produce is answered a retriable error and written again
// as a new object), and a claim that comes later finds the commit's row
// and keeps the object. The cutoff (the grace period) only keeps the
// sweeper from failing commits that are merely slow. Claims stay (one small
// row per orphan); a claim whose DELETE failed is deleted again next time.
//
// orphan_sweeper runs sweep_orphans every interval on a thread of its own,
// on one broker of the cluster at a time (a PostgreSQL advisory lock taken
// with pg_try_advisory_lock for the sweep; each claim commits before its
// DELETE).
#pragma once

#include <chrono>
#include <string>

#include "base/result.h"
#include "cluster/pg.h"
#include "objstore/s3_client.h"
#include "shared/exclusive_job.h"

namespace ketch::shared {

struct sweep_result {
    size_t listed = 0;
    size_t young = 0;    // newer than the cutoff: left alone
    size_t kept = 0;     // recorded by a commit
    size_t deleted = 0;  // orphans
};

result<sweep_result, std::string> sweep_orphans(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                const std::string& prefix,
                                                std::chrono::system_clock::time_point cutoff);

struct sweeper_config {
    job_session* jobs = nullptr;  // the broker's (outlives the sweeper)
    objstore::s3_location where;
    objstore::credentials who;
    std::chrono::milliseconds interval{60000};  // --cluster-sweep-interval-ms
    std::chrono::milliseconds grace{600000};    // --cluster-sweep-grace-ms
};

class orphan_sweeper {
public:
    explicit orphan_sweeper(sweeper_config cfg);

private:
    void sweep_once(cluster::pg_connection& pg);

    const sweeper_config cfg_;
    objstore::s3_client s3_;
    exclusive_job job_;  // last: stopped first
};

}  // namespace ketch::shared
