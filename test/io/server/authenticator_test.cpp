// Password checks through the real HTTP server, counted through an injected check (the real
// bcrypt underneath): a second request with the same credentials runs no bcrypt; a wrong
// password is still refused once the right one is cached, and does not evict it; an unknown user
// costs one bcrypt check at the highest cost in the file, every time; and a check that hangs on
// the pool does not stop the server from answering a client whose credentials are cached.
#include "torcrun/server/io/authenticator.hpp"

#include "loopback.hpp"
#include "run_coro.hpp"
#include "server_fixture.hpp"
#include "torcrun/common/io/http_client.hpp"

#include <boost/test/unit_test.hpp>

#include <crypt.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace io = torcrun::io;
namespace test = torcrun::test;
using namespace std::chrono_literals;

using test::loopback_settings;
using test::server_fixture;

BOOST_AUTO_TEST_SUITE(authenticator)

// Calls bcrypt_matches and records each call; it runs on the server's verification threads.
// A password "hang" blocks its check until `release` is set (at most 5 s).
struct counting_check {
    struct record {
        std::mutex mutex;
        std::vector<std::string> hashes;
        std::atomic<bool> release{false};
    };
    std::shared_ptr<record> seen = std::make_shared<record>();

    bool operator()(std::string_view password, std::string_view hash) const {
        {
            std::lock_guard const lock(seen->mutex);
            seen->hashes.emplace_back(hash);
        }
        if (password == "hang")
            for (int i = 0; i < 5000 && !seen->release; ++i)
                std::this_thread::sleep_for(1ms);
        return io::bcrypt_matches(password, hash);
    }
    std::vector<std::string> hashes() const {
        std::lock_guard const lock(seen->mutex);
        return seen->hashes;
    }
    std::size_t calls() const { return hashes().size(); }
};

struct auth_fixture {
    counting_check check;
    std::unique_ptr<server_fixture> f;

    explicit auth_fixture(std::string const& users_file, std::size_t threads = 2) {
        auto settings = loopback_settings();
        settings.htpasswd_file = test::write_temp_file("auth.htpasswd", users_file);
        settings.check_password = check;
        settings.verify_threads = threads;
        f = std::make_unique<server_fixture>(settings);
    }
    ~auth_fixture() { check.seen->release = true; }

    std::unique_ptr<io::http_client> client(std::string user, std::string password) {
        auto s = f->client();
        s.user = std::move(user);
        s.password = std::move(password);
        return std::make_unique<io::http_client>(f->ioc, s);
    }
    unsigned status(io::http_client& c) {
        auto reply = f->call(c, "GET", "/echo");
        return reply ? 200U : reply.error().status;
    }
};

BOOST_AUTO_TEST_CASE(a_second_request_with_the_same_credentials_runs_no_bcrypt) {
    auth_fixture a("alice:" + test::bcrypt_hash("secret") + "\n");
    auto alice = a.client("alice", "secret");
    BOOST_TEST(a.status(*alice) == 200U);
    BOOST_TEST(a.check.calls() == 1U);
    BOOST_TEST(a.status(*alice) == 200U);
    BOOST_TEST(a.status(*alice) == 200U);
    auto again = a.client("alice", "secret");  // another connection, the same credentials
    BOOST_TEST(a.status(*again) == 200U);
    BOOST_TEST(a.check.calls() == 1U);
    BOOST_REQUIRE(a.f->handler.seen.size() == 4U);
    BOOST_TEST(a.f->handler.seen.back().user.value_or("") == "alice");
}

BOOST_AUTO_TEST_CASE(a_wrong_password_is_refused_after_the_right_one_was_cached) {
    auth_fixture a("alice:" + test::bcrypt_hash("secret") + "\n");
    auto alice = a.client("alice", "secret");
    auto wrong = a.client("alice", "Secret");
    BOOST_TEST(a.status(*alice) == 200U);
    BOOST_TEST(a.status(*wrong) == 401U);
    BOOST_TEST(a.status(*wrong) == 401U);
    BOOST_TEST(a.check.calls() == 3U);  // a wrong password always goes to bcrypt
    BOOST_TEST(a.status(*alice) == 200U);
    BOOST_TEST(a.check.calls() == 3U);  // and leaves the right one cached
}

BOOST_AUTO_TEST_CASE(an_unknown_user_costs_a_bcrypt_check_at_the_files_highest_cost) {
    std::string const alice = test::bcrypt_hash("secret", 7);
    std::string const bob = test::bcrypt_hash("hunter2", 6);
    auth_fixture a("alice:" + alice + "\nbob:" + bob + "\n");
    auto mallory = a.client("mallory", "secret");
    BOOST_TEST(a.status(*mallory) == 401U);
    BOOST_TEST(a.status(*mallory) == 401U);  // failures are never cached
    auto wrong_bob = a.client("bob", "secret");
    BOOST_TEST(a.status(*wrong_bob) == 401U);
    auto const hashes = a.check.hashes();
    BOOST_REQUIRE(hashes.size() == 3U);
    BOOST_TEST(hashes[0] == hashes[1]);
    BOOST_TEST(hashes[0] != alice);
    BOOST_TEST(hashes[0].substr(0, 7) == "$2b$07$");
    BOOST_TEST(io::bcrypt_cost(hashes[0]) == io::bcrypt_cost(alice));
    BOOST_TEST(hashes[2] == bob);
    // The dummy is a setting crypt_r accepts, so the check really runs all 2^7 rounds.
    auto data = std::make_unique<crypt_data>();
    char const* out = crypt_r("secret", hashes[0].c_str(), data.get());
    BOOST_REQUIRE(out != nullptr);
    BOOST_TEST(std::string(out).size() == 60U);
    BOOST_TEST(std::string(out).substr(0, 29) == hashes[0].substr(0, 29));
}

BOOST_AUTO_TEST_CASE(a_hanging_check_does_not_stop_a_cached_client) {
    auth_fixture a("alice:" + test::bcrypt_hash("secret") + "\n", 1);
    auto alice = a.client("alice", "secret");
    BOOST_TEST(a.status(*alice) == 200U);
    auto hanging = a.client("alice", "hang");
    auto slot = test::spawn_request(a.f->ioc, *hanging, "GET", "/echo");
    for (int i = 0; i < 250 && a.check.calls() < 2; ++i) {
        a.f->ioc.restart();
        a.f->ioc.run_for(20ms);
    }
    BOOST_REQUIRE(a.check.calls() == 2U);  // the hanging check holds the only thread now
    // The reactor goes on serving.
    for (int i = 0; i < 5; ++i) BOOST_TEST(a.status(*alice) == 200U);
    BOOST_TEST(!slot->has_value());
    a.check.seen->release = true;
    for (int i = 0; i < 250 && !slot->has_value(); ++i) {
        a.f->ioc.restart();
        a.f->ioc.run_for(20ms);
    }
    BOOST_REQUIRE(slot->has_value());
    BOOST_REQUIRE(!slot->value().has_value());
    BOOST_TEST(slot->value().error().status == 401U);
    BOOST_TEST(a.check.calls() == 2U);
}

BOOST_AUTO_TEST_SUITE_END()
