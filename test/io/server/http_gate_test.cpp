// The server's checks before the handler, on values: targets outside the base path, bad
// targets, and Basic auth with and without anonymous access; every reply body verbatim. The
// credentials screen_credentials passes on are verified here as the server's authenticator
// does, with htpasswd::verify.
#include "torcrun/server/io/http_gate.hpp"

#include "torcrun/server/io/htpasswd.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace io = torcrun::io;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(http_gate)

// alice / "secret", `$2y$05$` as htpasswd -B writes it.
std::string const users_file =
    "alice:$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a\n";

struct gate_case {
    std::string name;
    std::string target;
    std::optional<std::string> authorization;
    bool auth_on;
    bool anonymous;
    unsigned status;  // 0 = admitted
    std::string body_or_path;
    bool challenge = false;
    std::optional<std::string> user = std::nullopt;
};
std::ostream& operator<<(std::ostream& os, gate_case const& c) { return os << c.name; }

std::string const alice = "Basic YWxpY2U6c2VjcmV0";       // alice:secret
std::string const alice_wrong = "Basic YWxpY2U6U2VjcmV0";  // alice:Secret
std::string const missing_message =
    R"({"message":"unauthorized: this server requires HTTP Basic credentials"})";
std::string const wrong_message = R"({"message":"unauthorized: wrong user name or password"})";

std::vector<gate_case> const cases{
    {"no auth: admitted", "/torc-service/v1/ping", std::nullopt, false, false, 0, "/ping"},
    {"no auth: a header is ignored", "/torc-service/v1/ping", alice_wrong, false, false, 0,
     "/ping"},
    {"outside the base", "/other", std::nullopt, false, false, 404,
     R"({"message":"not found: \"/other\" is not under /torc-service/v1"})"},
    {"a longer prefix is outside", "/torc-service/v10/ping", std::nullopt, false, false, 404,
     R"({"message":"not found: \"/torc-service/v10/ping\" is not under /torc-service/v1"})"},
    {"bytes that are not UTF-8, quoted as U+FFFD (JSON is UTF-8)",
     "/torc-s\xff\xff\xe9x\xc3\xa9/v1", std::nullopt, false, false, 400,
     R"({"message":"request target: \"/torc-s\ufffd\ufffd\ufffdx)"
     "\xc3\xa9"
     R"(/v1\" is not a path with an optional query"})"},
    {"a bad target", "/torc-service/v1/%zz", std::nullopt, false, false, 400,
     R"({"message":"request target: \"/torc-service/v1/%zz\" )"
     R"(is not a path with an optional query"})"},
    {"auth: missing", "/torc-service/v1/ping", std::nullopt, true, false, 401, missing_message,
     true},
    {"auth: missing, outside the base", "/other", std::nullopt, true, false, 401, missing_message,
     true},
    {"auth: wrong password", "/torc-service/v1/ping", alice_wrong, true, false, 401, wrong_message,
     true},
    {"auth: unknown user", "/torc-service/v1/ping", "Basic Ym9iOnNlY3JldA==", true, false, 401,
     wrong_message, true},
    {"auth: not Basic", "/torc-service/v1/ping", "Bearer abc", true, false, 401, wrong_message,
     true},
    {"auth: right", "/torc-service/v1/ping", alice, true, false, 0, "/ping", false, "alice"},
    {"anonymous allowed: none given", "/torc-service/v1/ping", std::nullopt, true, true, 0,
     "/ping"},
    {"anonymous allowed: wrong still refused", "/torc-service/v1/ping", alice_wrong, true, true,
     401, wrong_message, true},
    {"anonymous allowed: right", "/torc-service/v1/ping", alice, true, true, 0, "/ping", false,
     "alice"},
};

// The server's order: screen the header, verify what it carries, then check the target.
std::variant<torcrun::api::request, io::server_reply> gate(io::htpasswd const& users,
                                                           io::incoming in,
                                                           io::auth_policy const& policy) {
    auto screened = io::screen_credentials(in.authorization, policy);
    if (auto* reply = std::get_if<io::server_reply>(&screened)) return std::move(*reply);
    std::optional<std::string> user;
    if (auto* credentials = std::get_if<io::basic_credentials>(&screened)) {
        if (!users.verify(credentials->user, credentials->password)) return io::wrong_credentials();
        user = credentials->user;
    }
    return io::admit(std::move(in), std::move(user));
}

BOOST_DATA_TEST_CASE(admits_or_answers, bdata::make(cases), c) {
    auto users = io::htpasswd::parse(users_file, "users");
    BOOST_REQUIRE(users);
    io::auth_policy const policy{c.auth_on, c.anonymous};
    auto out = gate(*users, io::incoming{"GET", c.target, c.authorization, "{}"}, policy);
    if (c.status == 0) {
        auto* req = std::get_if<torcrun::api::request>(&out);
        BOOST_REQUIRE(req != nullptr);
        BOOST_TEST(req->path == c.body_or_path);
        BOOST_TEST(req->method == "GET");
        BOOST_TEST(req->body == "{}");
        BOOST_TEST(req->may_wait);
        BOOST_TEST(req->user.value_or("<none>") == c.user.value_or("<none>"));
    } else {
        auto* reply = std::get_if<io::server_reply>(&out);
        BOOST_REQUIRE(reply != nullptr);
        BOOST_TEST(reply->response.status == c.status);
        BOOST_TEST(reply->response.body == c.body_or_path);
        BOOST_TEST(reply->response.content_type == "application/json");
        BOOST_TEST(reply->challenge == c.challenge);
    }
}

BOOST_AUTO_TEST_CASE(json_error_escapes_the_message) {
    auto reply = io::json_error(413, "a \"quoted\" \\ thing");
    BOOST_TEST(reply.response.status == 413U);
    BOOST_TEST(reply.response.body == R"({"message":"a \"quoted\" \\ thing"})");
}

BOOST_AUTO_TEST_SUITE_END()
