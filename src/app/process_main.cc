// The process: a command group (`ketch topic list`, `ketch env`, ...) goes to
// the Kafka command line (src/cli, docs/cli.md); else the flags, the signal
// mask, then the broker (app/run_broker.cc wires the layers together).
#include "app/process_main.h"

#include <chrono>
#include <csignal>
#include <iostream>

#include <spdlog/spdlog.h>

#include "app/cli_local_broker.h"
#include "app/listeners.h"
#include "app/options.h"
#include "app/run_broker.h"
#include "cli/run.h"

namespace ketch::app {

int process_main(int argc, char** argv) {
    auto started = std::chrono::steady_clock::now();
    if (argc > 1 && cli::is_command(argv[1])) return cli::run(argc, argv, local_broker_settings);
    options opt = parse_options(argc, argv);
    resolved_listeners lis;
    try {
        lis = resolve_listeners(opt);
    } catch (const std::exception& e) {
        std::cerr << "ketch: " << e.what() << "\n";
        return 2;
    }
    spdlog::set_level(spdlog::level::from_str(opt.log_level));
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");

    // Signals are taken by sigwait on the main thread; block them everywhere.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    try {
        return run_broker(opt, lis, started);
    } catch (const std::exception& e) {
        spdlog::critical("ketch: {}", e.what());
        return 1;
    }
}

}  // namespace ketch::app
