// The sweeper of cluster mode (docs/design/cluster.md, the produce path):
// an object is written before the commit that records it, so a broker that
// dies between the two leaves an object no commit references. The sweeper
// lists the objects under a prefix and deletes those older than a cutoff
// that ketch_objects does not know. The cutoff must be older than any
// commit can take after its PUT (the grace period), so that an object whose
// commit is still under way is never taken for an orphan.
#pragma once

#include <chrono>
#include <string>

#include "base/result.h"
#include "cluster/pg.h"
#include "objstore/s3_client.h"

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

}  // namespace ketch::shared
