// The cache of verified credentials: a hit only for the remembered password of that user, its
// bound (least recently used goes first), and tags that keep user and password apart.
#include "torcrun/server/io/credential_cache.hpp"

#include <boost/test/unit_test.hpp>

namespace io = torcrun::io;

BOOST_AUTO_TEST_SUITE(credential_cache)

BOOST_AUTO_TEST_CASE(holds_only_the_remembered_password_of_that_user) {
    io::credential_cache cache;
    BOOST_TEST(!cache.holds("alice", "secret"));
    cache.remember("alice", "secret");
    BOOST_TEST(cache.holds("alice", "secret"));
    BOOST_TEST(!cache.holds("alice", "Secret"));
    BOOST_TEST(!cache.holds("alice", "secret "));
    BOOST_TEST(!cache.holds("alice", ""));
    BOOST_TEST(!cache.holds("bob", "secret"));
    BOOST_TEST(!cache.holds("Alice", "secret"));
    cache.remember("alice", "new");  // a changed password replaces the entry
    BOOST_TEST(cache.holds("alice", "new"));
    BOOST_TEST(!cache.holds("alice", "secret"));
    BOOST_TEST(cache.size() == 1U);
}

BOOST_AUTO_TEST_CASE(the_user_name_and_the_password_do_not_run_together) {
    io::credential_cache cache;
    cache.remember("ab", "c");
    BOOST_TEST(cache.holds("ab", "c"));
    BOOST_TEST(!cache.holds("a", "bc"));
    cache.remember("a", "bc");
    BOOST_TEST(cache.holds("a", "bc"));
    BOOST_TEST(!cache.holds("a", "c"));
}

BOOST_AUTO_TEST_CASE(is_bounded_and_forgets_the_least_recently_used) {
    io::credential_cache cache(2);
    BOOST_TEST(cache.capacity() == 2U);
    cache.remember("a", "1");
    cache.remember("b", "2");
    BOOST_TEST(cache.holds("a", "1"));  // a is now the most recent
    cache.remember("c", "3");           // b goes
    BOOST_TEST(cache.size() == 2U);
    BOOST_TEST(!cache.holds("b", "2"));
    BOOST_TEST(cache.holds("a", "1"));
    BOOST_TEST(cache.holds("c", "3"));
    for (int i = 0; i < 100; ++i) cache.remember("u" + std::to_string(i), "p");
    BOOST_TEST(cache.size() == 2U);
    BOOST_TEST(cache.holds("u99", "p"));
    BOOST_TEST(cache.holds("u98", "p"));
    cache.clear();
    BOOST_TEST(cache.size() == 0U);
    BOOST_TEST(!cache.holds("u99", "p"));
}

BOOST_AUTO_TEST_SUITE_END()
