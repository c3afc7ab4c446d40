// htpasswd files as `htpasswd -B` writes them: accepted lines, every rejection verbatim, bcrypt
// verification through libxcrypt, and the Basic credential header both ways.
#include "torcrun/common/io/basic_auth.hpp"
#include "torcrun/server/io/htpasswd.hpp"

#include "loopback.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(htpasswd)

// A real `htpasswd -B -C 5` style entry for alice / "secret" (made with crypt_r).
std::string const alice_hash = "$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a";

struct reject_case {
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, reject_case const& c) { return os << c.message; }

std::vector<reject_case> const rejected{
    {"", "htpasswd: users: no users"},
    {"# only a comment\n\n", "htpasswd: users: no users"},
    {"alice\n", "htpasswd: users:1: \"alice\" is not a user:hash line"},
    {"\n:" + alice_hash + "\n",
     "htpasswd: users:2: \":" + alice_hash + "\" is not a user:hash line"},
    {"bob:$apr1$abc$defghijklmnopqrstuvwx\n",
     "htpasswd: users:1: user \"bob\" has a hash that is not bcrypt ($2y$, $2b$ or $2a$, as "
     "htpasswd -B writes)"},
    {"bob:{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=\n",
     "htpasswd: users:1: user \"bob\" has a hash that is not bcrypt ($2y$, $2b$ or $2a$, as "
     "htpasswd -B writes)"},
    {"bob:$2x$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a\n",
     "htpasswd: users:1: user \"bob\" has a hash that is not bcrypt ($2y$, $2b$ or $2a$, as "
     "htpasswd -B writes)"},
    {"bob:$2y$03$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a\n",
     "htpasswd: users:1: user \"bob\" has a hash that is not bcrypt ($2y$, $2b$ or $2a$, as "
     "htpasswd -B writes)"},
    {"bob:$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0\n",
     "htpasswd: users:1: user \"bob\" has a hash that is not bcrypt ($2y$, $2b$ or $2a$, as "
     "htpasswd -B writes)"},
    {"bob:$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hj!0a\n",
     "htpasswd: users:1: user \"bob\" has a hash that is not bcrypt ($2y$, $2b$ or $2a$, as "
     "htpasswd -B writes)"},
    {"alice:" + alice_hash + "\nalice:" + alice_hash + "\n",
     "htpasswd: users:2: user \"alice\" appears twice"},
};

BOOST_DATA_TEST_CASE(rejects_with_the_line_and_the_user, bdata::make(rejected), c) {
    auto parsed = io::htpasswd::parse(c.text, "users");
    BOOST_REQUIRE(!parsed);
    BOOST_TEST(parsed.error().message == c.message);
}

struct verify_case {
    std::string file;
    std::string user;
    std::string password;
    bool ok;
};
std::ostream& operator<<(std::ostream& os, verify_case const& c) {
    return os << c.user << "/" << c.password;
}

std::string const alice_2b = "$2b$" + alice_hash.substr(4);
std::string const alice_2a = "$2a$" + alice_hash.substr(4);

std::vector<verify_case> const verifications{
    {"alice:" + alice_hash + "\n", "alice", "secret", true},
    {"alice:" + alice_hash + "\r\n", "alice", "secret", true},
    {"# users\n\nalice:" + alice_hash, "alice", "secret", true},
    {"alice:" + alice_2b + "\n", "alice", "secret", true},
    {"alice:" + alice_2a + "\n", "alice", "secret", true},
    {"alice:" + alice_hash + "\n", "alice", "Secret", false},
    {"alice:" + alice_hash + "\n", "alice", "", false},
    {"alice:" + alice_hash + "\n", "alice", std::string("secret\0", 7), false},
    {"alice:" + alice_hash + "\n", "bob", "secret", false},
    {"alice:" + alice_hash + "\n", "Alice", "secret", false},
};

BOOST_DATA_TEST_CASE(verifies_bcrypt_with_crypt_r, bdata::make(verifications), c) {
    auto users = io::htpasswd::parse(c.file, "users");
    BOOST_REQUIRE(users);
    BOOST_TEST(users->size() == 1U);
    BOOST_TEST(users->verify(c.user, c.password) == c.ok);
}

BOOST_AUTO_TEST_CASE(verifies_a_hash_made_with_a_fresh_salt) {
    std::string const file = "carol:" + test::bcrypt_hash("pa:ss word") + "\n";
    BOOST_TEST(file.substr(6, 7) == "$2b$05$");
    auto users = io::htpasswd::parse(file, "users");
    BOOST_REQUIRE(users);
    BOOST_TEST(users->verify("carol", "pa:ss word"));
    BOOST_TEST(!users->verify("carol", "pa:ss"));
}

BOOST_AUTO_TEST_CASE(an_unknown_user_is_checked_against_a_dummy_at_the_highest_cost) {
    std::string const file = "a:" + test::bcrypt_hash("x", 4) + "\nb:" +
                             test::bcrypt_hash("y", 6) + "\nc:" + test::bcrypt_hash("z", 5) + "\n";
    auto users = io::htpasswd::parse(file, "users");
    BOOST_REQUIRE(users);
    auto const known = users->find("b");
    BOOST_TEST(known.known);
    BOOST_TEST(io::bcrypt_cost(known.hash) == 6);
    auto const unknown = users->find("nobody");
    BOOST_TEST(!unknown.known);
    BOOST_TEST(unknown.hash.substr(0, 7) == "$2b$06$");
    BOOST_TEST(!io::bcrypt_matches("", unknown.hash));
    BOOST_TEST(!io::bcrypt_matches("x", unknown.hash));
    // verify() runs the check for an unknown user too, and refuses even if the check passed.
    int calls = 0;
    io::password_check const always = [&calls](std::string_view, std::string_view) {
        ++calls;
        return true;
    };
    BOOST_TEST(!users->verify("nobody", "x", always));
    BOOST_TEST(users->verify("a", "anything", always));
    BOOST_TEST(calls == 2);
}

BOOST_AUTO_TEST_CASE(loads_a_file_and_names_a_missing_one) {
    auto path = test::write_temp_file("users.htpasswd", "alice:" + alice_hash + "\n");
    auto users = io::htpasswd::load(path);
    BOOST_REQUIRE(users);
    BOOST_TEST(users->verify("alice", "secret"));

    auto missing = io::htpasswd::load(path + ".nope");
    BOOST_REQUIRE(!missing);
    BOOST_TEST(missing.error().message ==
               "htpasswd: cannot read \"" + path + ".nope\": No such file or directory");

    auto const bad_path = test::write_temp_file("bad.htpasswd", "x\n");
    auto bad = io::htpasswd::load(bad_path);
    BOOST_REQUIRE(!bad);
    BOOST_TEST(bad.error().message ==
               "htpasswd: " + bad_path + ":1: \"x\" is not a user:hash line");
}

struct header_case {
    std::string header;
    std::optional<std::string> user;
    std::optional<std::string> password;
};
std::ostream& operator<<(std::ostream& os, header_case const& c) { return os << c.header; }

std::vector<header_case> const headers{
    {"Basic YWxpY2U6c2VjcmV0", "alice", "secret"},
    {"basic YWxpY2U6c2VjcmV0", "alice", "secret"},
    {"BASIC   YWxpY2U6c2VjcmV0  ", "alice", "secret"},
    {"Basic YWxpY2U6YTpi", "alice", "a:b"},    // the password may contain ':'
    {"Basic OnNlY3JldA==", "", "secret"},       // empty user name
    {"Basic YWxpY2U6", "alice", ""},            // empty password
    {"Basic YWxpY2U=", std::nullopt, std::nullopt},  // no ':'
    {"Basic YWxpY2U6c2VjcmV0=", std::nullopt, std::nullopt},  // bad padding
    {"Basic YWxp*2U6c2VjcmV0", std::nullopt, std::nullopt},
    {"Basic ", std::nullopt, std::nullopt},
    {"Bearer YWxpY2U6c2VjcmV0", std::nullopt, std::nullopt},
    {"", std::nullopt, std::nullopt},
};

BOOST_DATA_TEST_CASE(parses_basic_authorization, bdata::make(headers), c) {
    auto got = io::parse_basic_authorization(c.header);
    BOOST_TEST(got.has_value() == c.user.has_value());
    if (got && c.user) {
        BOOST_TEST(got->user == *c.user);
        BOOST_TEST(got->password == *c.password);
    }
}

BOOST_AUTO_TEST_CASE(builds_the_header_the_parser_reads) {
    BOOST_TEST(io::basic_authorization("alice", "secret") == "Basic YWxpY2U6c2VjcmV0");
    auto back = io::parse_basic_authorization(io::basic_authorization("u", "p:\xc3\xa9"));
    BOOST_REQUIRE(back);
    BOOST_TEST(back->user == "u");
    BOOST_TEST(back->password == "p:\xc3\xa9");
}

struct equal_case {
    std::string a;
    std::string b;
    bool equal;
};
std::ostream& operator<<(std::ostream& os, equal_case const& c) { return os << c.a << "|" << c.b; }

std::vector<equal_case> const equalities{
    {"", "", true}, {"abc", "abc", true}, {"abc", "abd", false},
    {"abc", "ab", false}, {"xbc", "abc", false},
};

BOOST_DATA_TEST_CASE(constant_time_equal_compares, bdata::make(equalities), c) {
    BOOST_TEST(io::constant_time_equal(c.a, c.b) == c.equal);
}

BOOST_AUTO_TEST_SUITE_END()
