// Base URLs for the client and request targets for the server, on values: what is accepted,
// how the query is decoded, and every rejection verbatim.
#include "torcrun/common/io/http_url.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace io = torcrun::io;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(http_url)

struct url_case {
    std::string text;
    std::string host;
    std::uint16_t port;
    std::string path;
    std::string host_header;
    bool tls = false;
};
std::ostream& operator<<(std::ostream& os, url_case const& c) { return os << c.text; }

std::vector<url_case> const accepted_urls{
    {"http://127.0.0.1:8080/torc-service/v1", "127.0.0.1", 8080, "/torc-service/v1",
     "127.0.0.1:8080"},
    {"http://localhost:8080/torc-service/v1/", "localhost", 8080, "/torc-service/v1",
     "localhost:8080"},
    {"HTTP://Node-12:9000/torc-service/v1//", "Node-12", 9000, "/torc-service/v1", "Node-12:9000"},
    {"http://example.org/torc-service/v1", "example.org", 80, "/torc-service/v1", "example.org"},
    {"http://example.org:/x", "example.org", 80, "/x", "example.org"},
    {"http://example.org", "example.org", 80, "", "example.org"},
    {"http://[::1]:8080/torc-service/v1", "::1", 8080, "/torc-service/v1", "[::1]:8080"},
    {"http://h:80/a%20b", "h", 80, "/a%20b", "h"},
    {"http://h:65535", "h", 65535, "", "h:65535"},
    {"https://h/torc-service/v1", "h", 443, "/torc-service/v1", "h", true},
    {"HTTPS://h:443/x", "h", 443, "/x", "h", true},
    {"https://127.0.0.1:8443/torc-service/v1", "127.0.0.1", 8443, "/torc-service/v1",
     "127.0.0.1:8443", true},
    {"https://h:80/x", "h", 80, "/x", "h:80", true},
};

BOOST_DATA_TEST_CASE(parses_base_urls, bdata::make(accepted_urls), c) {
    auto url = io::parse_base_url(c.text);
    BOOST_REQUIRE(url);
    BOOST_TEST(url->host == c.host);
    BOOST_TEST(url->port == c.port);
    BOOST_TEST(url->path == c.path);
    BOOST_TEST(url->host_header == c.host_header);
    BOOST_TEST(url->tls == c.tls);
}

BOOST_AUTO_TEST_CASE(renders_the_url_clients_are_told) {
    BOOST_TEST(io::parse_base_url("https://h:8443/torc-service/v1/")->text() ==
               "https://h:8443/torc-service/v1");
    BOOST_TEST(io::parse_base_url("HTTP://[::1]:80/x")->text() == "http://[::1]/x");
}

struct reject_case {
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, reject_case const& c) { return os << c.text; }

std::vector<reject_case> const rejected_urls{
    {"", "url: \"\" is not a valid URL"},
    {"localhost:8080", "url: \"localhost:8080\" is not an http or https URL"},
    {"127.0.0.1:8080/x", "url: \"127.0.0.1:8080/x\" is not a valid URL"},
    {"http//h/x", "url: \"http//h/x\" is not a valid URL"},
    {"http://h x/", "url: \"http://h x/\" is not a valid URL"},
    {"ftp://h/", "url: \"ftp://h/\" is not an http or https URL"},
    {"https://u@h/x",
     "url: \"https://u@h/x\" must not contain a user name or password; use the auth settings"},
    {"http:///torc-service/v1", "url: \"http:///torc-service/v1\" has no host"},
    {"http://h:99999/x", "url: \"http://h:99999/x\" has an invalid port"},
    {"http://h:0/x", "url: \"http://h:0/x\" has an invalid port"},
    {"http://h:65536/x", "url: \"http://h:65536/x\" has an invalid port"},
    {"http://u:p@h/x",
     "url: \"http://u:p@h/x\" must not contain a user name or password; use the auth settings"},
    {"http://h/x?y=1", "url: \"http://h/x?y=1\" must not have a query or a fragment"},
    {"http://h/x#frag", "url: \"http://h/x#frag\" must not have a query or a fragment"},
};

BOOST_DATA_TEST_CASE(rejects_base_urls, bdata::make(rejected_urls), c) {
    auto url = io::parse_base_url(c.text);
    BOOST_REQUIRE(!url);
    BOOST_TEST(url.error().message == c.message);
}

using pairs = std::vector<std::string>;  // "key=value", in the multimap's order

pairs flatten(std::multimap<std::string, std::string> const& query) {
    pairs out;
    for (auto const& [k, v] : query) out.push_back(k + "=" + v);
    return out;
}

struct target_case {
    std::string target;
    std::string path;
    pairs query;
};
std::ostream& operator<<(std::ostream& os, target_case const& c) { return os << c.target; }

std::vector<target_case> const targets{
    {"/torc-service/v1/ping", "/torc-service/v1/ping", {}},
    {"/x?offset=0&limit=10", "/x", {"limit=10", "offset=0"}},
    {"/x?status=ready&status=done&a=1", "/x", {"a=1", "status=ready", "status=done"}},
    {"/x?name=a%20b+c&empty=&flag", "/x", {"empty=", "flag=", "name=a b c"}},
    {"/x?k%3D=v%26w", "/x", {"k==v&w"}},
    {"/x?", "/x", {}},
    {"/x?a=1&&b=2&=3", "/x", {"=3", "a=1", "b=2"}},
    {"/a%2Fb/%7Euser", "/a/b/~user", {}},
    {"/x?q=%E2%9C%93", "/x", {"q=\xe2\x9c\x93"}},
};

BOOST_DATA_TEST_CASE(splits_and_decodes_targets, bdata::make(targets), c) {
    auto t = io::split_request_target(c.target);
    BOOST_REQUIRE(t);
    BOOST_TEST(t->path == c.path);
    pairs got = flatten(t->query);
    BOOST_TEST(got == c.query, boost::test_tools::per_element());
}

std::vector<reject_case> const bad_targets{
    {"http://h/x", "request target: \"http://h/x\" is not a path with an optional query"},
    {"*", "request target: \"*\" is not a path with an optional query"},
    {"x/y", "request target: \"x/y\" is not a path with an optional query"},
    {"/x%zz", "request target: \"/x%zz\" is not a path with an optional query"},
    {"/x#f", "request target: \"/x#f\" is not a path with an optional query"},
};

BOOST_DATA_TEST_CASE(rejects_targets, bdata::make(bad_targets), c) {
    auto t = io::split_request_target(c.text);
    BOOST_REQUIRE(!t);
    BOOST_TEST(t.error().message == c.message);
}

struct base_case {
    std::string path;
    std::optional<std::string> relative;
};
std::ostream& operator<<(std::ostream& os, base_case const& c) { return os << c.path; }

std::vector<base_case> const bases{
    {"/torc-service/v1/ping", "/ping"},
    {"/torc-service/v1/workflows/3/is_complete", "/workflows/3/is_complete"},
    {"/torc-service/v1", "/"},
    {"/torc-service/v1/", "/"},
    {"/torc-service/v10/ping", std::nullopt},
    {"/torc-service/v", std::nullopt},
    {"/", std::nullopt},
    {"/other/torc-service/v1", std::nullopt},
};

BOOST_DATA_TEST_CASE(strips_the_base_path, bdata::make(bases), c) {
    auto const got = io::relative_to_base(c.path, io::torc_base_path);
    BOOST_TEST(got.value_or("<outside>") == c.relative.value_or("<outside>"));
}

BOOST_AUTO_TEST_SUITE_END()
