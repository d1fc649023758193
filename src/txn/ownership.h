// Which transactional ids this broker coordinates (cluster mode;
// docs/design/cluster.md "transactions"). Unset on a single node: the
// coordinator serves every id from its store, loaded at start. In cluster
// mode the coordinator asks before each request for an id: an id another
// broker owns is answered NOT_COORDINATOR (and what this broker held of it
// dropped); an id it owns and does not hold yet is taken (its lease) and its
// stored state returned, which the coordinator adopts in place of its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "meta/txn_store.h"

namespace ketch::txn {

class txn_ownership {
public:
    virtual ~txn_ownership() = default;

    struct serving {
        bool owned = true;
        // Set when the id was taken now: its state as stored (nullopt: none).
        std::optional<std::optional<meta::stored_txn>> taken;
    };
    virtual serving serve(const std::string& transactional_id) = 0;
    // Ids this broker owns with a transaction not finished and not taken yet
    // (their coordinator died): the coordinator takes them, so that the
    // prepared ones complete and the open ones time out here.
    virtual std::vector<std::string> orphans() = 0;
    // The epoch of the id's lease this broker holds (each take bumps it):
    // the coordinator epoch its markers carry, so that a partition refuses
    // a marker of a coordinator that lost the id once a newer one wrote
    // there (Kafka: the __transaction_state partition's leader epoch).
    virtual int32_t coordinator_epoch(const std::string& transactional_id) { return 0; }
};

}  // namespace ketch::txn
