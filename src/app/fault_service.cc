#include "app/fault_service.h"

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "app/console_service.h"
#include "app/pg_fault_store.h"
#include "base/clock.h"
#include "io/fault_file_system.h"

namespace ketch::app {

fault_service fault_service::from(const options& opt, const resolved_listeners& lis) {
    fault_service s;
    if (!opt.faults) return s;
    for (auto& l : lis.listeners) {
        if (is_loopback_host(l.host)) continue;
        if (!opt.faults_unsafe)
            throw std::runtime_error("--faults with the listener " + l.name + " on " + l.host +
                                     ", not a loopback address: anyone who reaches the broker would be answered "
                                     "with injected faults; add --faults-unsafe if that is meant");
        spdlog::warn("--faults-unsafe: fault injection with the listener {} on {}", l.name, l.host);
    }
    if (!opt.console)
        throw std::runtime_error(
            "--faults needs the console: faults are added at its /api/v1/faults "
            "(docs/console.md)");
    if (!opt.cluster.empty()) s.store = make_pg_fault_store(opt.cluster);
    s.registry = std::make_unique<fault::registry>(s.store.get());
    spdlog::warn("--faults: fault injection is ON (ketch fault add|list|clear; /api/v1/faults){}",
                 s.store ? ", the cluster's faults: every broker started with --faults injects them" : "");
    return s;
}

std::shared_ptr<io::file_system> fault_service::wrap(std::shared_ptr<io::file_system> fs) const {
    if (!registry) return fs;
    auto faulty = std::make_shared<io::fault_file_system>(std::move(fs));
    faulty->set_fault_rule([reg = registry.get()](const std::string& path, bool sync) -> std::optional<io::io_errc> {
        if (!reg->active()) return std::nullopt;
        auto hit = reg->take_disk(path, sync);
        if (!hit) return std::nullopt;
        spdlog::info("fault {}: injected {} on {}", hit->id, fault::kind_name(hit->what), path);
        return sync ? io::io_errc::io : io::io_errc::no_space;
    });
    return faulty;
}

notice_follower fault_service::follow(storage_engines& storage) const {
    fault::registry* reg = store ? registry.get() : nullptr;
    return {storage, k_faults_changed, [reg] {
                if (!reg) return;
                try {
                    reg->reload(steady_ms());
                } catch (const fault::store_unavailable& e) {
                    spdlog::warn("cluster: reloading the faults: {}", e.what());
                }
            }};
}

}  // namespace ketch::app
