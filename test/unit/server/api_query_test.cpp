// Query parameters of the list endpoints: paging defaults and limits, typed filters, and every
// rejection verbatim (all 400).
#include "torcrun/server/query_params.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(api_query)

using query = std::vector<std::pair<std::string, std::string>>;

api::request make(query const& q)
{
    api::request req;
    req.method = "GET";
    req.path = "/files";
    for (auto const& [k, v] : q) req.query.emplace(k, v);
    return req;
}

struct paging_case {
    query q;
    api::paging expected;
};
std::ostream& operator<<(std::ostream& os, paging_case const& c)
{
    return os << c.q.size() << " params";
}

std::vector<paging_case> const pagings{
    {{}, {0, 10000, std::nullopt, false}},
    {{{"offset", "20"}, {"limit", "5"}}, {20, 5, std::nullopt, false}},
    {{{"limit", "100000"}}, {0, 10000, std::nullopt, false}},  // the contract's default, lowered
    {{{"limit", "0"}}, {0, 0, std::nullopt, false}},
    {{{"sort_by", "name"}, {"reverse_sort", "true"}}, {0, 10000, "name", true}},
    {{{"sort_by", ""}, {"reverse_sort", "false"}}, {0, 10000, std::nullopt, false}},
    {{{"sort_by", "st_mtime"}}, {0, 10000, "st_mtime", false}},
    {{{"unknown", "x"}}, {0, 10000, std::nullopt, false}},
};

BOOST_DATA_TEST_CASE(paging_values, bdata::make(pagings), c)
{
    auto out = api::parse_paging(make(c.q), api::file_model, "files");
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST((*out == c.expected));
}

struct reject_case {
    query q;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, reject_case const& c) { return os << c.message; }

std::vector<reject_case> const paging_rejections{
    {{{"offset", "-1"}}, R"(files: query parameter "offset": must not be negative)"},
    {{{"offset", "x"}}, R"(files: query parameter "offset": "x" is not an integer)"},
    {{{"offset", "1.5"}}, R"(files: query parameter "offset": "1.5" is not an integer)"},
    {{{"offset", ""}}, R"(files: query parameter "offset": "" is not an integer)"},
    {{{"limit", "-5"}}, R"(files: query parameter "limit": must not be negative)"},
    {{{"limit", "1"}, {"limit", "2"}}, R"(files: query parameter "limit": given more than once)"},
    {{{"reverse_sort", "1"}}, R"(files: query parameter "reverse_sort": "1" is not true or false)"},
    {{{"sort_by", "bogus"}},
     R"(files: query parameter "sort_by": "bogus" is not a sortable field of file_model)"},
    {{{"sort_by", "name; DROP TABLE file"}},
     R"(files: query parameter "sort_by": "name; DROP TABLE file" is not a sortable field of file_model)"},
};

BOOST_DATA_TEST_CASE(paging_rejected, bdata::make(paging_rejections), c)
{
    auto out = api::parse_paging(make(c.q), api::file_model, "files");
    BOOST_TEST_REQUIRE(out.has_error());
    BOOST_TEST(out.error().status == 400u);
    BOOST_TEST(out.error().message == c.message);
}

BOOST_AUTO_TEST_CASE(links_and_objects_are_not_sortable)
{
    for (auto field : {"depends_on_job_ids", "input_file_ids"}) {
        auto out = api::parse_paging(make({{"sort_by", field}}), api::job_model, "jobs");
        BOOST_TEST(out.has_error());
    }
    BOOST_TEST(
        api::parse_paging(make({{"sort_by", "data"}}), api::user_data_model, "u").has_error());
    BOOST_TEST(
        api::parse_paging(make({{"sort_by", "status"}}), api::job_model, "jobs").has_value());
}

struct value_case {
    api::param_spec param;
    query q;
    std::optional<api::cell> expected;
    std::string message;  // non-empty: expected rejection
};
std::ostream& operator<<(std::ostream& os, value_case const& c) { return os << c.param.name; }

std::vector<value_case> const values{
    {{"job_id"}, {{"job_id", "42"}}, api::cell{std::int64_t{42}}, ""},
    {{"job_id"}, {}, std::nullopt, ""},
    {{"job_id", api::param_kind::integer, true},
     {},
     std::nullopt,
     R"(files: query parameter "job_id": required parameter is missing)"},
    {{"job_id"},
     {{"job_id", "4x"}},
     std::nullopt,
     R"(files: query parameter "job_id": "4x" is not an integer)"},
    {{"is_output", api::param_kind::boolean},
     {{"is_output", "true"}},
     api::cell{std::int64_t{1}},
     ""},
    {{"is_output", api::param_kind::boolean},
     {{"is_output", "false"}},
     api::cell{std::int64_t{0}},
     ""},
    {{"is_output", api::param_kind::boolean},
     {{"is_output", "True"}},
     std::nullopt,
     R"(files: query parameter "is_output": "True" is not true or false)"},
    {{"status", api::param_kind::job_status},
     {{"status", "ready"}},
     api::cell{std::int64_t{2}},
     ""},
    {{"status", api::param_kind::job_status},
     {{"status", "done"}},
     std::nullopt,
     R"(files: query parameter "status": "done" is not a job status)"},
    {{"name", api::param_kind::string}, {{"name", "a b"}}, api::cell{std::string("a b")}, ""},
};

BOOST_DATA_TEST_CASE(filter_values, bdata::make(values), c)
{
    auto out = api::query_value(make(c.q), c.param, "files");
    if (!c.message.empty()) {
        BOOST_TEST_REQUIRE(out.has_error());
        BOOST_TEST(out.error().status == 400u);
        BOOST_TEST(out.error().message == c.message);
        return;
    }
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST((*out == c.expected));
}

BOOST_AUTO_TEST_SUITE_END()
