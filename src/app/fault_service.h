// --faults (docs/configuration.md, docs/design/faults.md): the registry of
// scripted faults, handed to the dispatcher, the console (/api/v1/faults) and
// the partitions' file system. Off by default: then nothing is made and the
// broker runs exactly as without this file.
#pragma once

#include <memory>

#include "app/listeners.h"
#include "app/options.h"
#include "fault/registry.h"
#include "io/file_system.h"

namespace ketch::app {

struct fault_service {
    std::unique_ptr<fault::registry> registry;  // null: --faults is off

    // Throws std::runtime_error when --faults is refused: a Kafka listener on
    // a non-loopback address without --faults-unsafe, or the console off.
    static fault_service from(const options& opt, const resolved_listeners& lis);

    // The partitions' file system: `fs` itself when off, else `fs` wrapped in
    // io::fault_file_system asking the registry's disk faults.
    std::shared_ptr<io::file_system> wrap(std::shared_ptr<io::file_system> fs) const;
};

}  // namespace ketch::app
