#include "cluster/membership.h"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "base/percent_encode.h"
#include "base/uuid.h"
#include "cluster/pg.h"
#include "cluster/schema.h"

namespace ketch::cluster {

namespace {

// This broker's row and listeners, replacing an earlier registration of the node id.
status<pg_error> register_broker(pg_connection& c, const broker_info& self, const std::string& incarnation) {
    if (auto s = c.run("BEGIN"); !s.ok()) return s;
    auto fail = [&c](pg_error e) {
        (void)c.run("ROLLBACK");
        return failure{std::move(e)};
    };
    const std::string node = std::to_string(self.node_id);
    auto prev = c.exec("SELECT incarnation FROM ketch_brokers WHERE node_id = $1 FOR UPDATE", {node});
    if (!prev.ok()) return fail(prev.error());
    if (!prev->rows.empty())
        spdlog::info("cluster: node id {} was registered before (incarnation {}): registering again", self.node_id,
                     prev->at(0, 0));
    auto up = c.exec(
        "INSERT INTO ketch_brokers (node_id, incarnation, rack) VALUES ($1, $2, $3) "
        "ON CONFLICT (node_id) DO UPDATE SET incarnation = EXCLUDED.incarnation, rack = EXCLUDED.rack, "
        "registered_at = now(), last_heartbeat = now()",
        {node, incarnation, self.rack});
    if (!up.ok()) return fail(up.error());
    if (auto d = c.exec("DELETE FROM ketch_broker_endpoints WHERE node_id = $1", {node}); !d.ok())
        return fail(d.error());
    for (auto& e : self.endpoints) {
        auto ins = c.exec("INSERT INTO ketch_broker_endpoints (node_id, listener, host, port) VALUES ($1, $2, $3, $4)",
                          {node, e.listener, e.host, std::to_string(e.port)});
        if (!ins.ok()) return fail(ins.error());
    }
    return c.run("COMMIT");
}

result<std::string, pg_error> agree_cluster_id(pg_connection& c, const std::string& proposed) {
    auto ins =
        c.exec("INSERT INTO ketch_cluster (cluster_id) VALUES ($1) ON CONFLICT (singleton) DO NOTHING", {proposed});
    if (!ins.ok()) return failure{ins.error()};
    auto id = c.exec("SELECT cluster_id FROM ketch_cluster");
    if (!id.ok()) return failure{id.error()};
    if (id->rows.empty()) return failure{pg_error{"ketch_cluster has no row", "", false}};
    return id->at(0, 0);
}

// The heartbeat connection's application_name: the broker's incarnation,
// which pg_stat_activity shows every session while the connection is open.
std::string session_name(int32_t node_id, const std::string& incarnation) {
    return "ketch-" + std::to_string(node_id) + "-" + incarnation;
}

// The URL with application_name set (percent-encoded: base64 has + and /).
std::string with_session_name(const std::string& url, const std::string& name) {
    return url + (url.find('?') == std::string::npos ? "?" : "&") + "application_name=" + percent_encode(name);
}

// Rows of (node_id, rack, listener, host, port, connected), ordered by node
// id, as brokers; `connected`: the node ids whose session is open.
broker_list to_brokers(const pg_rows& rows, std::set<int32_t>& connected) {
    broker_list out;
    for (auto& r : rows.rows) {
        int32_t node = std::stoi(r[0].value_or("0"));
        if (out.empty() || out.back().node_id != node) out.push_back({node, r[1], {}});
        if (r[2] && r[3] && r[4]) out.back().endpoints.push_back({*r[2], *r[3], std::stoi(*r[4])});
        if (r[5] == std::optional<std::string>("t")) connected.insert(node);
    }
    return out;
}

}  // namespace

membership::membership(membership_config cfg, std::unique_ptr<pg_connection> c, std::string cluster_id,
                       std::string incarnation)
    : cfg_(std::move(cfg)),
      conn_(std::move(c)),
      cluster_id_(std::move(cluster_id)),
      incarnation_(std::move(incarnation)),
      live_(std::make_shared<const broker_list>(broker_list{cfg_.self})),
      serving_(live_) {}

result<std::unique_ptr<membership>, std::string> membership::join(membership_config cfg) {
    if (auto bad = check_postgres_url(cfg.url)) return failure{*bad};
    std::string incarnation = uuid::random().to_base64();
    const auto registering = std::chrono::steady_clock::now();
    auto c = pg_connection::open(with_session_name(cfg.url, session_name(cfg.self.node_id, incarnation)));
    if (!c.ok()) return failure{"cannot connect to PostgreSQL: " + c.error().message};
    auto version = migrate(**c);
    if (!version.ok()) return failure{"cannot migrate the cluster schema: " + version.error().message};
    auto id = agree_cluster_id(**c, cfg.cluster_id);
    if (!id.ok()) return failure{"cannot read the cluster id: " + id.error().message};
    if (auto r = register_broker(**c, cfg.self, incarnation); !r.ok())
        return failure{"cannot register node " + std::to_string(cfg.self.node_id) + ": " + r.error().message};
    spdlog::info("cluster: schema version {}, cluster id {}, registered node {} (incarnation {})", *version, *id,
                 cfg.self.node_id, incarnation);
    std::unique_ptr<membership> m(new membership(std::move(cfg), std::move(*c), std::move(*id), incarnation));
    m->heard(registering);  // the registration stamps last_heartbeat
    m->refresh();
    m->thread_ = std::thread([p = m.get()] { p->run(); });
    return m;
}

membership::~membership() {
    {
        std::lock_guard g(stop_mu_);
        stop_ = true;
    }
    stop_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (conn_ && !replaced_) {
        auto d = conn_->exec("DELETE FROM ketch_brokers WHERE node_id = $1 AND incarnation = $2",
                             {std::to_string(cfg_.self.node_id), incarnation_});
        if (!d.ok()) spdlog::warn("cluster: could not deregister: {}", d.error().message);
    }
}

std::shared_ptr<const broker_list> membership::live() const {
    std::lock_guard g(mu_);
    return live_;
}

std::shared_ptr<const broker_list> membership::serving() const {
    std::lock_guard g(mu_);
    return serving_;
}

void membership::run() {
    std::unique_lock lk(stop_mu_);
    while (!stop_cv_.wait_for(lk, cfg_.heartbeat_interval, [this] { return stop_; })) {
        lk.unlock();
        if ((conn_ && conn_->healthy()) || reconnect()) {
            if (heartbeat()) refresh();
        }
        lk.lock();
    }
}

bool membership::reconnect() {
    auto c = pg_connection::open(with_session_name(cfg_.url, session_name(cfg_.self.node_id, incarnation_)));
    if (!c.ok()) {
        spdlog::warn("cluster: PostgreSQL unreachable: {}", c.error().message);
        return false;
    }
    conn_ = std::move(*c);
    spdlog::info("cluster: reconnected to PostgreSQL");
    return true;
}

membership::live_window membership::window() const {
    std::lock_guard g(mu_);
    return window_;
}

membership::live_window membership::live_window::renewed(time_point sent,
                                                         std::chrono::milliseconds session_timeout) const {
    live_window out = *this;
    if (sent >= until) out.since = sent;
    out.until = sent + session_timeout - liveness_margin(session_timeout);
    return out;
}

void membership::heard(std::chrono::steady_clock::time_point sent) {
    std::lock_guard g(mu_);
    const bool first = window_.until == live_window::time_point{};
    window_ = window_.renewed(sent, cfg_.session_timeout);
    if (window_.since == sent && !first)
        spdlog::warn(
            "cluster: this broker's heartbeats stopped past its session window (paused, or PostgreSQL "
            "unreachable): groups held are confirmed in PostgreSQL before they are answered");
}

bool membership::heartbeat() {
    if (replaced_) return true;  // not renewed: the window closes
    const auto sent = std::chrono::steady_clock::now();
    auto r = conn_->exec("UPDATE ketch_brokers SET last_heartbeat = now() WHERE node_id = $1 AND incarnation = $2",
                         {std::to_string(cfg_.self.node_id), incarnation_});
    if (!r.ok()) {
        spdlog::warn("cluster: heartbeat failed: {}", r.error().message);
        return false;
    }
    if (r->affected == 0) {
        // Another process registered this node id (or the row was removed):
        // this one stops claiming it rather than fight over the row.
        replaced_ = true;
        spdlog::error("cluster: node id {} is registered by another process now; this broker stops heartbeating",
                      cfg_.self.node_id);
    } else {
        heard(sent);
    }
    return true;
}

bool membership::refresh() {
    auto r = conn_->exec(
        "SELECT b.node_id, b.rack, e.listener, e.host, e.port, EXISTS (SELECT 1 FROM pg_stat_activity a "
        "WHERE a.application_name = 'ketch-' || b.node_id || '-' || b.incarnation) FROM ketch_brokers b "
        "LEFT JOIN ketch_broker_endpoints e ON e.node_id = b.node_id "
        "WHERE b.last_heartbeat > now() - $1::bigint * interval '1 millisecond' "
        "ORDER BY b.node_id, e.listener",
        {std::to_string(cfg_.session_timeout.count())});
    if (!r.ok()) {
        spdlog::warn("cluster: cannot read live brokers: {}", r.error().message);
        return false;
    }
    std::set<int32_t> connected{cfg_.self.node_id};
    auto list = to_brokers(*r, connected);
    bool self_listed = false;
    for (auto& b : list) self_listed |= b.node_id == cfg_.self.node_id;
    if (!self_listed) {  // a client talking to this broker is always told of it
        list.push_back(cfg_.self);
        std::sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.node_id < b.node_id; });
    }
    std::shared_ptr<const broker_list> before;
    std::vector<change_listener> listeners;
    {
        std::lock_guard g(mu_);
        before = live_;
        listeners = listeners_;
    }
    auto ids = [](const broker_list& l) {
        std::vector<int32_t> out;
        for (auto& b : l) out.push_back(b.node_id);
        return out;
    };
    // Serving: the connected ones among the live set published (Metadata
    // lists live() and names leaders among serving()).
    auto connected_of = [&connected](const broker_list& l) {
        broker_list out;
        for (auto& b : l)
            if (connected.contains(b.node_id)) out.push_back(b);
        return std::make_shared<const broker_list>(std::move(out));
    };
    bool ready = true;
    if (ids(*before) != ids(list))
        for (auto& l : listeners) ready = l(*before, list) && ready;
    if (!ready) {
        std::lock_guard g(mu_);
        serving_ = connected_of(*before);
        return false;
    }
    std::lock_guard g(mu_);
    serving_ = connected_of(list);
    live_ = std::make_shared<const broker_list>(std::move(list));
    return true;
}

void membership::add_change_listener(change_listener l) {
    std::lock_guard g(mu_);
    listeners_.push_back(std::move(l));
}

}  // namespace ketch::cluster
