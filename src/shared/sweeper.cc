#include "shared/sweeper.h"

namespace ketch::shared {

result<sweep_result, std::string> sweep_orphans(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                const std::string& prefix,
                                                std::chrono::system_clock::time_point cutoff) {
    sweep_result out;
    std::string continuation;
    do {
        auto page = s3.list_objects(prefix, continuation);
        if (!page.ok()) return failure{"listing " + prefix + ": " + page.error().describe()};
        for (auto& o : page->objects) {
            ++out.listed;
            if (o.last_modified >= cutoff) {
                ++out.young;
                continue;
            }
            auto known = pg.exec("SELECT 1 FROM ketch_objects WHERE object_key = $1", {o.key});
            if (!known.ok()) return failure{"reading ketch_objects: " + known.error().message};
            if (!known->rows.empty()) {
                ++out.kept;
                continue;
            }
            auto d = s3.delete_object(o.key);
            if (!d.ok() && d.error().http_status != 404)
                return failure{"deleting " + o.key + ": " + d.error().describe()};
            ++out.deleted;
        }
        continuation = page->next_continuation;
    } while (!continuation.empty());
    return out;
}

}  // namespace ketch::shared
