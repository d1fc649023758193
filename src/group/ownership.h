// Cluster mode: which groups this broker's coordinator serves
// (docs/design/cluster.md "consumer groups"). The coordinator asks before a
// request touches a group's slot; a group it does not serve is answered
// NOT_COORDINATOR, so its members look for the coordinator again. Without
// an ownership (a single node) every group is served.
#pragma once

#include <string>

namespace ketch::group {

class group_ownership {
public:
    virtual ~group_ownership() = default;
    // Whether this broker serves `group_id` now. May first take the group
    // over (group_coordinator::acquire_group), on the calling thread; never
    // called with a lock of the coordinator held.
    virtual bool serves(const std::string& group_id) = 0;
};

}  // namespace ketch::group
