#include "console/local_pages.h"

#include "console/reply.h"

namespace ketch::console {

local_pages::local_pages(const context& ctx) {
    add_local_traffic(router_, ctx);
    add_local_clients(router_, ctx);
    add_local_transactions(router_, ctx);
    add_local_groups(router_, ctx);
    add_local_group_offsets(router_, ctx);
}

peer_brokers::page local_pages::answer(const request& page, const std::string& principal) const {
    http::request req;
    req.method = page.method;
    req.path = "/api/v1/" + page.path;
    req.target = req.path + (page.query.empty() ? "" : "?" + page.query);
    req.query = http::parse_query(page.query);
    req.body = page.body;
    req.principal = principal;
    auto m = router_.find(req);
    if (m.result != http::router::outcome::found)
        return {404, error_reply(404, "no such page: " + page.method + " " + page.path).body};
    auto resp = (*m.handler)(req);
    return {resp.status, std::move(resp.body)};
}

}  // namespace ketch::console
