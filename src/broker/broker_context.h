// What handlers reach: the broker's services (the metadata store, the logs)
// and its settings. Built by app/, passed by reference, never global.
#pragma once

#include "broker/broker_config.h"

namespace ketch::meta {
class topic_registry;
}
namespace ketch::log {
class log_manager;
}
namespace ketch::txn {
class producer_ids;
}

namespace ketch::broker {

class partition_waiters;

struct broker_context {
    broker_config config;
    meta::topic_registry& topics;
    log::log_manager& logs;
    partition_waiters& waiters;
    txn::producer_ids& producer_ids;
};

}  // namespace ketch::broker
