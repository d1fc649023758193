#include "http/router.h"
#include "http/server.h"

#include <gtest/gtest.h>

namespace ketch::http {
namespace {

request make(std::string method, std::string target) {
    request r;
    r.method = std::move(method);
    r.target = target;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = parse_query(target.substr(q + 1));
    return r;
}

response tagged(std::string tag) { return response{200, "text/plain", std::move(tag)}; }

TEST(router, parameters_are_percent_decoded_per_segment) {
    router rt;
    rt.add("GET", "/subjects/{subject}/versions/{version}", [](request& r) { return tagged(r.param("subject")); });
    auto req = make("GET", "/subjects/a%2Fb%20c/versions/latest");
    auto m = rt.find(req);
    ASSERT_EQ(m.result, router::outcome::found);
    EXPECT_EQ((*m.handler)(req).body, "a/b c");
    EXPECT_EQ(req.param("version"), "latest");
}

TEST(router, literal_segments_win_over_parameters) {
    router rt;
    rt.add("GET", "/schemas/{id}", [](request&) { return tagged("param"); });
    rt.add("GET", "/schemas/types", [](request&) { return tagged("types"); });
    auto req = make("GET", "/schemas/types");
    EXPECT_EQ((*rt.find(req).handler)(req).body, "types");
    auto other = make("GET", "/schemas/7");
    EXPECT_EQ((*rt.find(other).handler)(other).body, "param");
}

TEST(router, wrong_method_is_405_with_allow_and_unknown_path_404) {
    router rt;
    rt.add("GET", "/config", [](request&) { return tagged("g"); });
    rt.add("PUT", "/config", [](request&) { return tagged("p"); });
    auto post = make("POST", "/config");
    auto m = rt.find(post);
    EXPECT_EQ(m.result, router::outcome::method_not_allowed);
    EXPECT_EQ(m.allow, "GET, PUT");
    auto none = make("GET", "/nope");
    EXPECT_EQ(rt.find(none).result, router::outcome::not_found);
    auto head = make("HEAD", "/config/");
    EXPECT_EQ(rt.find(head).result, router::outcome::found);  // HEAD as GET, trailing slash ignored
}

TEST(router, query_strings_decode_and_flags_read_true_only) {
    auto req = make("GET", "/x?deleted=TRUE&permanent=false&subjectPrefix=a%2Bb+c&empty");
    EXPECT_TRUE(req.query_flag("deleted"));
    EXPECT_FALSE(req.query_flag("permanent"));
    EXPECT_FALSE(req.query_flag("missing"));
    EXPECT_EQ(req.query_value("subjectPrefix"), "a+b c");
    EXPECT_EQ(req.query_value("empty"), "");
}

TEST(server, handler_exceptions_become_500_and_auth_hook_answers_first) {
    server_options opt;
    opt.authenticate = [](request& r) -> std::optional<response> {
        if (r.header("authorization")) {
            r.principal = "alice";
            return std::nullopt;
        }
        return response{401, "text/plain", "who?"};
    };
    server s(opt);
    s.add("GET", "/boom", [](request&) -> response { throw std::runtime_error("x"); });
    s.add("GET", "/me", [](request& r) { return tagged(r.principal); });
    auto anon = make("GET", "/me");
    EXPECT_EQ(s.handle(anon).status, 401);
    auto me = make("GET", "/me");
    me.headers["authorization"] = "Basic x";
    EXPECT_EQ(s.handle(me).body, "alice");
    auto boom = make("GET", "/boom");
    boom.headers["authorization"] = "Basic x";
    EXPECT_EQ(s.handle(boom).status, 500);
}

}  // namespace
}  // namespace ketch::http
