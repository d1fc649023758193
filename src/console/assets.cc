// The pages: GET / and /ui/... answer index.html (the page script routes by
// the path), GET /assets/{name} the embedded files.
#include "console/assets.h"

#include "console/reply.h"
#include "console/routes.h"

namespace ketch::console {

namespace {

const embedded_asset* find_asset(std::string_view path) {
    for (auto& a : embedded_assets())
        if (a.path == path) return &a;
    return nullptr;
}

http::response serve(const embedded_asset& a) {
    http::response r;
    r.content_type = std::string(a.content_type);
    r.body = std::string(a.data);
    r.headers.emplace_back("Cache-Control", "no-cache");
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("Content-Security-Policy",
                           "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'");
    return r;
}

http::response index() {
    auto* a = find_asset("index.html");
    if (!a) return error_reply(404, "the console's pages are not in this build");
    return serve(*a);
}

}  // namespace

void add_assets(http::server& server, const context&) {
    server.add("GET", "/", [](http::request&) { return index(); });
    server.add("GET", "/ui/{page}", [](http::request&) { return index(); });
    server.add("GET", "/ui/{page}/{item}", [](http::request&) { return index(); });
    server.add("GET", "/assets/{name}", [](http::request& req) {
        auto* a = find_asset(req.param("name"));
        if (!a) return error_reply(404, "no asset " + req.param("name"));
        return serve(*a);
    });
}

}  // namespace ketch::console
