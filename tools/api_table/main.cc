// Prints the API table of docs/compatibility.md from the handler registry
// and the pinned Kafka release's message definitions, so the document is
// generated from the code (a ctest fails when they drift apart).
#include <iostream>
#include <string>

#include "broker/handler.h"
#include "protocol/messages/api_table.h"

int main() {
    using namespace ketch;
    std::cout << "| key | API | Kafka 4.3.1 versions | ketch serves | status |\n";
    std::cout << "|---:|---|---|---|---|\n";
    for (auto& a : kafka::all_apis()) {
        if (!a.broker) continue;
        std::string kafka_range = std::to_string(a.min_version) + "-" + std::to_string(a.max_stable_version);
        auto* h = broker::find_handler(a.key);
        std::string ours = h ? std::to_string(h->min_version) + "-" + std::to_string(h->max_version) : "—";
        std::string status = !h                                                                            ? "not yet"
                             : (h->min_version == a.min_version && h->max_version >= a.max_stable_version) ? "served"
                                                                                                           : "partial";
        std::cout << "| " << a.key << " | " << a.name << " | " << kafka_range << " | " << ours << " | " << status
                  << " |\n";
    }
}
