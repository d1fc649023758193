#include "cli/client.h"

#include <algorithm>
#include <thread>

#include "protocol/messages/api_table.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/request_header.h"
#include "protocol/messages/response_header.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "security/crypto.h"

namespace ketch::cli {

namespace {
std::string what_with(const std::string& what, int16_t code, const std::string& broker_message) {
    std::string s = what + ": " + error_name_of(code) + " (" + std::to_string(code) + ")";
    if (!broker_message.empty())
        s += ": " + broker_message;
    else if (auto e = error_from_int(code); e && !error_message(*e).empty())
        s += ": " + std::string(error_message(*e));
    return s;
}
}  // namespace

kafka_error::kafka_error(int16_t c, std::string what, std::string msg)
    : std::runtime_error(what_with(what, c, msg)), code(c), broker_message(std::move(msg)) {}

unsupported_api::unsupported_api(std::string_view name)
    : std::runtime_error("the broker does not support " + std::string(name) +
                         " (UNSUPPORTED_VERSION); this command needs a newer Kafka") {}

std::string error_name_of(int16_t code) {
    if (auto e = error_from_int(code); e && !error_name(*e).empty()) return std::string(error_name(*e));
    return "ERROR_" + std::to_string(code);
}

std::string error_hint(int16_t code) {
    switch (code) {
        case 3: return "check the topic name with `ketch topic list`";
        case 7: return "the broker is slow or overloaded; retry, or raise -X request.timeout.ms";
        case 29:
        case 30:
        case 31: return "the principal lacks an ACL for this; see `ketch acl list` (as a super user)";
        case 36: return "the topic already exists; `ketch topic describe NAME` shows it";
        case 37: return "use -p/--partitions N with N >= 1 (or the broker default)";
        case 38: return "the replication factor is larger than the number of brokers";
        case 40: return "the config name or value is not one Kafka accepts for this resource";
        case 41: return "ask the cluster's controller; retry";
        case 44: return "the topic's policy refuses it (e.g. DeleteRecords on a compacted topic)";
        case 54: return "the broker has no authorizer (ketch: --authorizer; Kafka: authorizer.class.name)";
        case 33: return "the listener does not enable this mechanism; check -X sasl.mechanism";
        case 58: return "check -X sasl.username, sasl.password and sasl.mechanism";
        case 68: return "the group is not empty; stop its consumers first";
        case 69: return "no such group; `ketch group list` shows the groups";
        case 35: return "the broker is older than this command expects";
        default: return {};
    }
}

void check(int16_t code, const std::string& what, const std::optional<std::string>& message) {
    if (code != 0) throw kafka_error(code, what, message.value_or(""));
}

struct client::broker_conn {
    std::unique_ptr<connection> sock;
    std::map<int16_t, std::pair<int16_t, int16_t>> versions;  // key -> (min, max)
};

client::client(client_config cfg) : cfg_(std::move(cfg)) {
    if (cfg_.brokers.empty())
        throw std::invalid_argument("no brokers: give -b host:port or set KAFKA_BOOTSTRAP_SERVERS");
}

client::~client() = default;

client::broker_conn& client::conn(int node) {
    if (auto it = conns_.find(node); it != conns_.end()) return *it->second;
    auto c = std::make_unique<broker_conn>();
    if (node < 0) {
        std::string errors;
        for (auto& b : cfg_.brokers) {
            try {
                c->sock = std::make_unique<connection>(b, cfg_.tls, cfg_.timeout);
                break;
            } catch (const network_error& e) {
                errors += std::string(errors.empty() ? "" : "; ") + e.what();
            }
        }
        if (!c->sock)
            throw network_error(errors + " (is a broker running there? check -b/--brokers or KAFKA_BOOTSTRAP_SERVERS)");
    } else {
        auto a = addresses_.find(node);
        if (a == addresses_.end()) {
            metadata(std::vector<std::string>{});
            a = addresses_.find(node);
            if (a == addresses_.end())
                throw network_error("broker " + std::to_string(node) + " is not in the cluster's metadata");
        }
        c->sock = std::make_unique<connection>(a->second, cfg_.tls, cfg_.timeout);
    }
    auto& ref = *c;
    conns_[node] = std::move(c);
    try {
        handshake(ref);
    } catch (...) {
        conns_.erase(node);
        throw;
    }
    return ref;
}

int32_t client::send_request(int node, int16_t key, int16_t version, const kafka::encoded_message& body) {
    return send_on(conn(node), key, version, body);
}

bytes client::roundtrip(int node, int16_t key, int16_t version, const kafka::encoded_message& body) {
    return exchange(conn(node), key, version, body);
}

int32_t client::send_on(broker_conn& c, int16_t key, int16_t version, const kafka::encoded_message& body) {
    const auto* api = kafka::find_api(key);
    kafka::request_header h;
    h.request_api_key = key;
    h.request_api_version = version;
    h.correlation_id = ++correlation_;
    h.client_id = cfg_.client_id;
    kafka::writer w;
    h.encode(w, api ? api->request_header_version(version) : 1);
    bytes frame = w.take_bytes();
    frame.insert(frame.end(), body.buf.begin(), body.buf.end());
    c.sock->send_frame(frame);
    return h.correlation_id;
}

bytes client::exchange(broker_conn& c, int16_t key, int16_t version, const kafka::encoded_message& body) {
    return receive_body(c, key, version, send_on(c, key, version, body));
}

bytes client::receive_body(broker_conn& c, int16_t key, int16_t version, int32_t id) {
    const auto* api = kafka::find_api(key);
    bytes resp = c.sock->read_frame();
    kafka::reader r(resp.data(), resp.size());
    kafka::response_header rh;
    rh.decode(r, api ? api->response_header_version(version) : 0);
    if (rh.correlation_id != id) throw network_error("response out of order from " + c.sock->address());
    size_t used = resp.size() - r.remaining();
    resp.erase(resp.begin(), resp.begin() + std::ptrdiff_t(used));
    return resp;
}

void client::handshake(broker_conn& c) {
    // ApiVersions: v3 first; a broker that does not know it answers
    // UNSUPPORTED_VERSION in the v0 shape with its own range (KIP-511).
    int16_t v = 3;
    kafka::api_versions_response resp;
    for (int attempt = 0; attempt < 2; ++attempt) {
        kafka::api_versions_request req;
        req.client_software_name = "ketch-cli";
        req.client_software_version = "0.1.0";
        kafka::writer w;
        req.encode(w, v);
        bytes raw = exchange(c, 18, v, w.take());
        kafka::reader r(raw.data(), raw.size());
        try {
            resp = {};
            resp.decode(r, v);
        } catch (const kafka::decode_error&) {
            kafka::reader r0(raw.data(), raw.size());
            resp = {};
            resp.decode(r0, 0);
        }
        if (resp.error_code == 35 && attempt == 0) {
            int16_t max = 0;
            for (auto& k : resp.api_keys)
                if (k.api_key_ == 18) max = k.max_version;
            v = std::min<int16_t>(max, 3);
            continue;
        }
        break;
    }
    check(resp.error_code, "ApiVersions to " + c.sock->address());
    for (auto& k : resp.api_keys) c.versions[k.api_key_] = {k.min_version, k.max_version};
    if (cfg_.uses_sasl()) authenticate(c);
}

namespace {
std::string scram_name(std::string_view user) {
    std::string out;
    for (char ch : user) {
        if (ch == ',')
            out += "=2C";
        else if (ch == '=')
            out += "=3D";
        else
            out += ch;
    }
    return out;
}
std::optional<std::string> scram_attr(std::string_view msg, char name) {
    size_t pos = 0;
    while (pos < msg.size()) {
        size_t end = msg.find(',', pos);
        if (end == std::string_view::npos) end = msg.size();
        auto part = msg.substr(pos, end - pos);
        if (part.size() >= 2 && part[0] == name && part[1] == '=') return std::string(part.substr(2));
        pos = end + 1;
    }
    return std::nullopt;
}
}  // namespace

void client::authenticate(broker_conn& c) {
    auto send = [&](auto req, auto resp, int16_t key, int16_t cap) {
        auto it = c.versions.find(key);
        if (it == c.versions.end()) throw unsupported_api(key == 17 ? "SaslHandshake" : "SaslAuthenticate");
        int16_t v = std::min(cap, it->second.second);
        kafka::writer w;
        req.encode(w, v);
        bytes raw = exchange(c, key, v, w.take());
        kafka::reader r(raw.data(), raw.size());
        resp.decode(r, v);
        return resp;
    };
    const std::string& mech = cfg_.sasl_mechanism;
    kafka::sasl_handshake_request hs;
    hs.mechanism = mech;
    auto hr = send(hs, kafka::sasl_handshake_response{}, 17, 1);
    if (hr.error_code != 0) {
        std::string enabled;
        for (auto& m : hr.mechanisms) enabled += (enabled.empty() ? "" : ", ") + m;
        throw kafka_error(hr.error_code, "SASL handshake with " + c.sock->address(),
                          mech + " is not enabled there (enabled: " + enabled + ")");
    }
    auto step = [&](const std::string& token) {
        kafka::sasl_authenticate_request a;
        a.auth_bytes.assign(token.begin(), token.end());
        auto r = send(a, kafka::sasl_authenticate_response{}, 36, 2);
        if (r.error_code != 0)
            throw kafka_error(r.error_code, "SASL " + mech + " login as '" + cfg_.sasl_username + "'",
                              r.error_message.value_or(""));
        return std::string(r.auth_bytes.begin(), r.auth_bytes.end());
    };
    if (mech == "PLAIN") {
        step(std::string(1, '\0') + cfg_.sasl_username + std::string(1, '\0') + cfg_.sasl_password);
        return;
    }
    if (mech == "OAUTHBEARER") {  // RFC 7628: an error JSON back is acknowledged with ^A, then the login fails
        if (!step("n,,\x01"
                  "auth=Bearer " +
                  cfg_.sasl_oauthbearer_token + "\x01\x01")
                 .empty())
            step("\x01");
        return;
    }
    auto alg = mech == "SCRAM-SHA-512" ? security::hash_alg::sha512 : security::hash_alg::sha256;
    std::string nonce = security::random_alnum(24);
    std::string bare = "n=" + scram_name(cfg_.sasl_username) + ",r=" + nonce;
    std::string server_first = step("n,," + bare);
    auto r = scram_attr(server_first, 'r');
    auto s = scram_attr(server_first, 's');
    auto i = scram_attr(server_first, 'i');
    if (!r || !s || !i || r->rfind(nonce, 0) != 0) throw network_error("malformed SCRAM server-first message");
    auto salt = security::base64_decode(*s);
    int iterations = std::atoi(i->c_str());
    if (!salt || iterations <= 0) throw network_error("malformed SCRAM salt or iteration count");
    std::string salted = security::pbkdf2(alg, cfg_.sasl_password, *salt, iterations);
    std::string client_key = security::hmac(alg, salted, "Client Key");
    std::string stored_key = security::digest(alg, client_key);
    std::string without_proof = "c=biws,r=" + *r;
    std::string auth_message = bare + "," + server_first + "," + without_proof;
    std::string proof = security::xor_bytes(client_key, security::hmac(alg, stored_key, auth_message));
    std::string server_final = step(without_proof + ",p=" + security::base64_encode(proof));
    std::string server_sig = security::hmac(alg, security::hmac(alg, salted, "Server Key"), auth_message);
    auto v = scram_attr(server_final, 'v');
    if (!v || *v != security::base64_encode(server_sig))
        throw network_error("the broker's SCRAM signature does not verify (not the server that holds the credential)");
}

int16_t client::version_for(int16_t key, int16_t our_max, int node) {
    auto& c = conn(node);
    auto it = c.versions.find(key);
    if (it == c.versions.end()) return -1;
    int16_t v = std::min(our_max, it->second.second);
    return v < it->second.first ? int16_t(-1) : v;
}

void client::learn_brokers(const kafka::metadata_response& m) {
    for (auto& b : m.brokers) {
        std::string host = b.host.find(':') != std::string::npos ? "[" + b.host + "]" : b.host;
        addresses_[b.node_id] = host + ":" + std::to_string(b.port);
    }
}

kafka::metadata_response client::metadata(const std::optional<std::vector<std::string>>& topics,
                                          bool allow_auto_create) {
    kafka::metadata_request req;
    if (topics) {
        req.topics.emplace();
        for (auto& t : *topics) {
            kafka::metadata_request::metadata_request_topic mt;
            mt.name = t;
            req.topics->push_back(std::move(mt));
        }
    } else {
        req.topics.reset();
    }
    req.allow_auto_topic_creation = allow_auto_create;
    auto resp = call<kafka::metadata_response>(req, -1, 12);
    learn_brokers(resp);
    return resp;
}

int client::coordinator(const std::string& key, coordinator_type type) {
    return while_coordinator_loads([&] { return find_coordinator(key, type); });
}

int client::find_coordinator(const std::string& key, coordinator_type type) {
    kafka::find_coordinator_request req;
    req.key = key;
    req.key_type = int8_t(type);
    req.coordinator_keys = {key};
    auto resp = call<kafka::find_coordinator_response>(req);
    int16_t v = version_for(10, kafka::find_coordinator_request::max_version);
    int32_t node;
    std::string host;
    int32_t port;
    std::string what = std::string(type == coordinator_type::group ? "group" : "transactional id") + " '" + key + "'";
    if (v >= 4) {
        if (resp.coordinators.empty()) throw network_error("FindCoordinator answered no coordinator for " + what);
        auto& c = resp.coordinators.front();
        check(c.error_code, "coordinator of " + what, c.error_message);
        node = c.node_id;
        host = c.host;
        port = c.port;
    } else {
        check(resp.error_code, "coordinator of " + what, resp.error_message);
        node = resp.node_id;
        host = resp.host;
        port = resp.port;
    }
    addresses_[node] = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
    return node;
}

}  // namespace ketch::cli
