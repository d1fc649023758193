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
    // What confirm() found.
    enum class confirmation { held, moved, unknown };

    virtual ~group_ownership() = default;
    // Whether this broker serves `group_id` now. May first take the group
    // over (group_coordinator::acquire_group), on the calling thread; never
    // called with a lock of the coordinator held.
    virtual bool serves(const std::string& group_id) = 0;
    // Whether the group this broker serves is still its own where the
    // ownership is kept (not from memory): asked before an answer served from
    // memory alone (OffsetFetch, TxnOffsetCommit), which no write fences. A
    // broker paused past its lease finds it moved (and then answers
    // NOT_COORDINATOR); unknown when the check itself failed. Called with
    // no lock of the coordinator held but, at most, the group's order lock.
    // Answered without a round trip while the ownership is vouched for in
    // memory (see unconfirmed()).
    virtual confirmation confirm(const std::string& /*group_id*/) { return confirmation::held; }
    // Whether this broker holds the group but cannot vouch from memory that
    // it still does (it was paused, or cut off from where ownership is kept,
    // long enough for another broker to take the group over): a request
    // answered from the group's state must confirm() it first. No I/O: asked
    // on the reactor before every group request. false for a group not held
    // (serves() takes it or refuses it).
    virtual bool unconfirmed(const std::string& /*group_id*/) { return false; }
    // Whether serves() would take the group over (it is this broker's now and
    // not held here): the take reads where ownership is kept, so a caller on
    // a reactor runs serves() elsewhere first. No I/O.
    virtual bool takes_over(const std::string& /*group_id*/) { return false; }
};

}  // namespace ketch::group
