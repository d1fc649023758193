#include "cluster/libpq.h"

#include <dlfcn.h>

namespace ketch::cluster {

namespace {

template <class F>
bool resolve(void* lib, const char* name, F& out, std::string& why) {
    out = reinterpret_cast<F>(dlsym(lib, name));
    if (!out) why = std::string("libpq: no symbol ") + name;
    return out != nullptr;
}

struct loaded {
    libpq_api api{};
    std::string why;
    bool ok = false;

    loaded() {
        void* lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* e = dlerror();
            why = std::string("cannot load libpq.so.5 (Debian package libpq5): ") + (e ? e : "unknown error");
            return;
        }
        ok = resolve(lib, "PQconnectdb", api.connectdb, why) && resolve(lib, "PQstatus", api.status, why) &&
             resolve(lib, "PQerrorMessage", api.error_message, why) && resolve(lib, "PQfinish", api.finish, why) &&
             resolve(lib, "PQexec", api.exec, why) && resolve(lib, "PQexecParams", api.exec_params, why) &&
             resolve(lib, "PQresultStatus", api.result_status, why) &&
             resolve(lib, "PQresultErrorMessage", api.result_error_message, why) &&
             resolve(lib, "PQresultErrorField", api.result_error_field, why) &&
             resolve(lib, "PQntuples", api.ntuples, why) && resolve(lib, "PQnfields", api.nfields, why) &&
             resolve(lib, "PQgetvalue", api.getvalue, why) && resolve(lib, "PQgetisnull", api.getisnull, why) &&
             resolve(lib, "PQcmdTuples", api.cmd_tuples, why) && resolve(lib, "PQclear", api.clear, why) &&
             resolve(lib, "PQsocket", api.socket, why) && resolve(lib, "PQconsumeInput", api.consume_input, why) &&
             resolve(lib, "PQnotifies", api.notifies, why) && resolve(lib, "PQfreemem", api.freemem, why);
    }
};

}  // namespace

const libpq_api* load_libpq(std::string& why) {
    static const loaded lib;  // C++11 magic static: loaded once, thread-safe
    if (!lib.ok) {
        why = lib.why;
        return nullptr;
    }
    return &lib.api;
}

}  // namespace ketch::cluster
