// The numbered migrations of cluster mode's PostgreSQL schema (cluster/schema.h:
// migrations()[i] takes the schema from version i to i + 1), joined from their
// ranges (cluster/migrations.h).
#include "cluster/migrations.h"

#include <vector>

#include "cluster/schema.h"

namespace ketch::cluster {

std::span<const char* const> migrations() {
    static const std::vector<const char*> all = [] {
        std::vector<const char*> v;
        for (auto range : {migrations_1_to_9(), migrations_10_on()}) v.insert(v.end(), range.begin(), range.end());
        return v;
    }();
    return all;
}

}  // namespace ketch::cluster
