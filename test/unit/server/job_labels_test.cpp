// job_labels.hpp: the claim's label parameter and a new workflow's access group names, each
// refusal verbatim.
#include "torcrun/server/job_labels.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

namespace api = torcrun::api;

namespace {

std::string refusal(boost::json::value const& body)
{
    auto const got = api::access_group_names(body, "workflows");
    return got ? std::string("ok") : std::to_string(got.error().status) + " " + got.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_labels)

BOOST_AUTO_TEST_CASE(a_claim_without_label_serves_unlabelled_jobs)
{
    auto const none = api::claim_label(std::nullopt, "claim_next_jobs");
    BOOST_TEST_REQUIRE(none.has_value());
    BOOST_TEST(!none->has_value());
    auto const gpu = api::claim_label(std::string("gpu"), "claim_next_jobs");
    BOOST_TEST_REQUIRE(gpu.has_value());
    BOOST_TEST(gpu->value() == "gpu");
}

BOOST_AUTO_TEST_CASE(an_empty_or_long_label_is_refused)
{
    std::string const expected = "claim_next_jobs: query parameter \"label\" must have 1 to 128 "
                                 "bytes (leave it out to claim unlabelled jobs)";
    auto const empty = api::claim_label(std::string(), "claim_next_jobs");
    BOOST_TEST_REQUIRE(!empty.has_value());
    BOOST_TEST(empty.error().status == 400u);
    BOOST_TEST(empty.error().message == expected);
    BOOST_TEST(api::claim_label(std::string(128, 'x'), "claim_next_jobs").has_value());
    BOOST_TEST(api::claim_label(std::string(129, 'x'), "claim_next_jobs").error().message ==
               expected);
}

BOOST_AUTO_TEST_CASE(access_group_names_in_order)
{
    auto const names =
        api::access_group_names(boost::json::parse(R"({"access_groups":["b","a"]})"), "w");
    BOOST_TEST_REQUIRE(names.has_value());
    BOOST_TEST((*names == std::vector<std::string>{"b", "a"}));
    BOOST_TEST(api::access_group_names(boost::json::parse(R"({"name":"w"})"), "w")->empty());
    BOOST_TEST(
        api::access_group_names(boost::json::parse(R"({"access_groups":null})"), "w")->empty());
}

BOOST_AUTO_TEST_CASE(malformed_access_groups_are_refused)
{
    BOOST_TEST(refusal(boost::json::parse(R"({"access_groups":"team"})")) ==
               "422 workflows: field \"access_groups\" must be an array of group names, found "
               "a string");
    BOOST_TEST(refusal(boost::json::parse(R"({"access_groups":["a",""]})")) ==
               "422 workflows: field \"access_groups\": entry 1 must be a non-empty group name");
    BOOST_TEST(refusal(boost::json::parse(R"({"access_groups":[3]})")) ==
               "422 workflows: field \"access_groups\": entry 0 must be a non-empty group name");
    BOOST_TEST(refusal(boost::json::parse(R"({"access_groups":["a","b","a"]})")) ==
               "422 workflows: field \"access_groups\": group \"a\" is named twice");
}

BOOST_AUTO_TEST_SUITE_END()
