#include "cluster/pg.h"

#include <cstdlib>

#include "cluster/libpq.h"

namespace ketch::cluster {

namespace {

std::string trimmed(const char* s) {
    std::string out = s ? s : "";
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

}  // namespace

const std::string& pg_rows::at(size_t row, size_t col) const {
    static const std::string empty;
    auto& v = rows.at(row).at(col);
    return v ? *v : empty;
}

std::string array_literal(const std::vector<std::string>& values) {
    std::string out = "{";
    for (size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        out += '"';
        for (char ch : values[i]) {
            if (ch == '"' || ch == '\\') out += '\\';
            out += ch;
        }
        out += '"';
    }
    return out + "}";
}

std::optional<std::string> check_postgres_url(const std::string& url) {
    if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0) return std::nullopt;
    return "--cluster: expected postgres://USER@HOST:PORT/DB, got '" + url + "'";
}

result<std::unique_ptr<pg_connection>, pg_error> pg_connection::open(const std::string& url, int connect_timeout) {
    std::string why;
    const libpq_api* api = load_libpq(why);
    if (!api) return failure{pg_error{why, "", true}};
    // A bounded connect, and writes that fail when PostgreSQL stops acknowledging
    // them (a vanished server must not hang a heartbeat or the shutdown).
    std::string conninfo = url;
    auto add = [&conninfo](const std::string& key, const std::string& value) {
        if (conninfo.find(key + "=") != std::string::npos) return;
        conninfo += (conninfo.find('?') == std::string::npos ? "?" : "&") + key + "=" + value;
    };
    add("connect_timeout", std::to_string(connect_timeout));
    add("tcp_user_timeout", std::to_string(connect_timeout * 1000));
    PGconn* c = api->connectdb(conninfo.c_str());
    if (!c || api->status(c) != CONNECTION_OK) {
        pg_error e{c ? trimmed(api->error_message(c)) : "out of memory", "", true};
        if (c) api->finish(c);
        return failure{std::move(e)};
    }
    return std::unique_ptr<pg_connection>(new pg_connection(*api, c));
}

pg_connection::~pg_connection() { api_.finish(conn_); }

bool pg_connection::healthy() const { return api_.status(conn_) == CONNECTION_OK; }

pg_error pg_connection::take_error(PGresult* r) const {
    pg_error e{r ? trimmed(api_.result_error_message(r)) : trimmed(api_.error_message(conn_)), "", false};
    if (r) {
        const char* state = api_.result_error_field(r, PG_DIAG_SQLSTATE);
        e.sqlstate = state ? state : "";
        api_.clear(r);
    }
    e.connection_lost = !healthy();
    return e;
}

result<pg_rows, pg_error> pg_connection::exec(const std::string& sql, const pg_params& params) {
    std::vector<const char*> values;
    for (auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* r = api_.exec_params(conn_, sql.c_str(), int(values.size()), nullptr, values.data(), nullptr, nullptr, 0);
    auto st = r ? api_.result_status(r) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return failure{take_error(r)};
    pg_rows out;
    int n = api_.ntuples(r), f = api_.nfields(r);
    out.rows.resize(size_t(n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < f; ++j)
            out.rows[size_t(i)].push_back(api_.getisnull(r, i, j) ? std::nullopt
                                                                  : std::optional<std::string>(api_.getvalue(r, i, j)));
    const char* affected = api_.cmd_tuples(r);
    out.affected = affected && *affected ? std::atoll(affected) : 0;
    api_.clear(r);
    return out;
}

status<pg_error> pg_connection::run(const std::string& sql) {
    PGresult* r = api_.exec(conn_, sql.c_str());
    auto st = r ? api_.result_status(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
        api_.clear(r);
        return ok_v;
    }
    return failure{take_error(r)};
}

int pg_connection::socket() const { return api_.socket(conn_); }

bool pg_connection::take_notifications(std::vector<notification>& out) {
    if (!api_.consume_input(conn_)) return false;
    while (PGnotify* n = api_.notifies(conn_)) {
        out.push_back({n->relname ? n->relname : "", n->extra ? n->extra : ""});
        api_.freemem(n);
    }
    return true;
}

}  // namespace ketch::cluster
