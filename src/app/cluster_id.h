// The cluster id of a data directory: made once (a random uuid in Kafka's
// base64 form, as `kafka-storage random-uuid` makes), kept in <data>/cluster.id.
#pragma once

#include <string>

namespace ketch::app {

std::string load_or_create_cluster_id(const std::string& data_dir);

}  // namespace ketch::app
