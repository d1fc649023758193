// One PostgreSQL connection (libpq, blocking), owned by one thread at a time.
// Queries take text parameters ($1, $2, ...) and answer rows of text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace ketch::cluster {

struct libpq_api;

struct pg_error {
    std::string message;
    std::string sqlstate;  // "" when the server sent none (connection errors)
    bool connection_lost = false;
};

struct pg_rows {
    std::vector<std::vector<std::optional<std::string>>> rows;  // NULL: nullopt
    int64_t affected = 0;                                       // rows an INSERT/UPDATE/DELETE touched
    const std::string& at(size_t row, size_t col) const;        // "" for NULL
};

using pg_params = std::vector<std::optional<std::string>>;

// A PostgreSQL array literal of text elements, one parameter: {"a","b"}
// (each quoted, \ and " escaped, so any text is one element).
std::string array_literal(const std::vector<std::string>& values);

// A postgres:// or postgresql:// URL (libpq reads it); else why not.
std::optional<std::string> check_postgres_url(const std::string& url);

class pg_connection {
public:
    // Connects (within connect_timeout seconds, unless the URL sets its own).
    static result<std::unique_ptr<pg_connection>, pg_error> open(const std::string& url, int connect_timeout = 5);
    ~pg_connection();
    pg_connection(const pg_connection&) = delete;
    pg_connection& operator=(const pg_connection&) = delete;

    result<pg_rows, pg_error> exec(const std::string& sql, const pg_params& params = {});
    // Runs statements without results; false with the error.
    status<pg_error> run(const std::string& sql);
    bool healthy() const;

    // LISTEN support: the socket to wait on (-1 if closed), and the
    // notifications that arrived since the last call (reads what the socket
    // has; false if the connection broke).
    int socket() const;
    struct notification {
        std::string channel;
        std::string payload;
    };
    bool take_notifications(std::vector<notification>& out);

private:
    // The error of a failed statement (clears `r`, which may be null).
    pg_error take_error(PGresult* r) const;
    pg_connection(const libpq_api& api, PGconn* c) : api_(api), conn_(c) {}
    const libpq_api& api_;
    PGconn* conn_;
};

}  // namespace ketch::cluster
