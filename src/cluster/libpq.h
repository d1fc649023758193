// libpq (PostgreSQL's C client library, Debian's libpq5), loaded with dlopen
// the first time cluster mode needs it: a single-node broker neither links
// nor loads it, so its start-up and its shared objects stay as they were.
// The types and signatures come from libpq-fe.h (libpq-dev); the functions
// are reached through this table.
#pragma once

#include <string>

#include <libpq-fe.h>

namespace ketch::cluster {

struct libpq_api {
    decltype(&::PQconnectdb) connectdb;
    decltype(&::PQstatus) status;
    decltype(&::PQerrorMessage) error_message;
    decltype(&::PQfinish) finish;
    decltype(&::PQexec) exec;
    decltype(&::PQexecParams) exec_params;
    decltype(&::PQresultStatus) result_status;
    decltype(&::PQresultErrorMessage) result_error_message;
    decltype(&::PQresultErrorField) result_error_field;
    decltype(&::PQntuples) ntuples;
    decltype(&::PQnfields) nfields;
    decltype(&::PQgetvalue) getvalue;
    decltype(&::PQgetisnull) getisnull;
    decltype(&::PQcmdTuples) cmd_tuples;
    decltype(&::PQclear) clear;
    decltype(&::PQsocket) socket;
    decltype(&::PQconsumeInput) consume_input;
    decltype(&::PQnotifies) notifies;
    decltype(&::PQfreemem) freemem;
};

// The table, loading libpq.so.5 on first use (thread-safe; the library stays
// loaded for the process's life). Null with `why` set when it cannot be loaded.
const libpq_api* load_libpq(std::string& why);

}  // namespace ketch::cluster
