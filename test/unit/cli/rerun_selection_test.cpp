// `torcrun rerun --job NAME`: names to job ids (every job of a repeated name, each id once,
// sorted) and the message for a name the workflow does not have, verbatim.
#include "torcrun/cli/rerun_selection.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(rerun_selection)

BOOST_AUTO_TEST_CASE(names_to_ids)
{
    std::vector<core::named_job> const jobs{{3, "b"}, {1, "a"}, {2, "b"}, {4, "c"}};
    std::vector<std::string> const names{"b", "a", "b"};
    auto ids = core::jobs_named(jobs, names, 7);
    BOOST_TEST_REQUIRE(ids.has_value());
    BOOST_TEST((*ids == std::vector<std::int64_t>{1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(an_unknown_name_is_named_with_the_jobs_there)
{
    std::vector<core::named_job> const jobs{{1, "a"}, {2, "b"}};
    std::vector<std::string> const names{"a", "zz"};
    auto ids = core::jobs_named(jobs, names, 7);
    BOOST_TEST_REQUIRE(!ids.has_value());
    BOOST_TEST(ids.error().message ==
               "--job \"zz\": workflow 7 has no job of that name (its jobs: a, b)");
    std::vector<core::named_job> many;
    for (int i = 1; i <= 12; ++i) many.push_back({i, "j" + std::to_string(i)});
    std::vector<std::string> const x{"x"};
    BOOST_TEST(core::jobs_named(many, x, 1).error().message ==
               "--job \"x\": workflow 1 has no job of that name (its jobs: j1, j2, j3, j4, j5, "
               "j6, j7, j8, j9, j10, ... (12 in all))");
    BOOST_TEST(core::jobs_named({}, x, 1).error().message ==
               "--job \"x\": workflow 1 has no job of that name (its jobs: none)");
}

BOOST_AUTO_TEST_SUITE_END()
