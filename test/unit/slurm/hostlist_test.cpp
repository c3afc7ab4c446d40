// Hostlist expansion and compression, and count lists, against Slurm's notation.
#include "torcrun/slurm/hostlist.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

namespace {

using names = std::vector<std::string>;

struct expand_case {
    std::string input;
    names expected;
};

struct error_case {
    std::string input;
    std::string message;
};

struct compress_case {
    names hosts;
    std::string expected;
};

struct counts_case {
    std::string input;
    std::vector<std::uint32_t> expected;
};

std::ostream& operator<<(std::ostream& os, expand_case const& c)
{
    return os << c.input;
}
std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << c.input;
}
std::ostream& operator<<(std::ostream& os, compress_case const& c)
{
    return os << c.expected;
}
std::ostream& operator<<(std::ostream& os, counts_case const& c)
{
    return os << c.input;
}

template <class T>
std::string message_of(core::result<T> const& r)
{
    return r.has_error() ? r.error().message : std::string();
}

names numbered(std::string const& prefix, int lo, int hi, int width)
{
    names out;
    for (int i = lo; i <= hi; ++i) {
        std::string n = std::to_string(i);
        out.push_back(prefix + std::string(static_cast<std::size_t>(width) - n.size(), '0') + n);
    }
    return out;
}

std::vector<expand_case> const expand_cases{
    {"n1", {"n1"}},
    {"n[1-3,7]", {"n1", "n2", "n3", "n7"}},
    {"gpu[001-010]", numbered("gpu", 1, 10, 3)},
    {"n[8-10]", {"n8", "n9", "n10"}},
    {"n[08-10]", {"n08", "n09", "n10"}},
    {"n[098-100]", {"n098", "n099", "n100"}},
    {"a[1-2],b3,c[01-02]", {"a1", "a2", "b3", "c01", "c02"}},
    {"rack[1-2]-n[01-02]", {"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}},
    {"n[1-2]-ib", {"n1-ib", "n2-ib"}},
    {"x[0-1]y[0-1]z", {"x0y0z", "x0y1z", "x1y0z", "x1y1z"}},
    {"n[7]", {"n7"}},
    {"n[1-1]", {"n1"}},
    {"n[3,1]", {"n3", "n1"}},
    {"login1,n[3-4]", {"login1", "n3", "n4"}},
    {"[1-2]", {"1", "2"}},
    {"n1,n1", {"n1", "n1"}},
    {"node-a.b_c", {"node-a.b_c"}},
};

std::vector<error_case> const expand_errors{
    {"", R"~(hostlist: "" is empty)~"},
    {"n[1-3", R"~(hostlist: "n[1-3" has an unbalanced bracket)~"},
    {"n1-3]", R"~(hostlist: "n1-3]" has an unbalanced bracket)~"},
    {"n[1[2]]", R"~(hostlist: "n[1[2]]" has a '[' inside brackets)~"},
    {"n[]", R"~(hostlist: "n[]" has an empty range)~"},
    {"n[1,]", R"~(hostlist: "n[1,]" has an empty range)~"},
    {"n[1-]", R"~(hostlist: "n[1-]" has an incomplete range "1-")~"},
    {"n[-3]", R"~(hostlist: "n[-3]" has an incomplete range "-3")~"},
    {"n[5-3]", R"~(hostlist: "n[5-3]" has a descending range "5-3")~"},
    {"n[a-b]", R"~(hostlist: "n[a-b]" has a non-numeric range "a-b")~"},
    {"n[1-2-3]", R"~(hostlist: "n[1-2-3]" has a non-numeric range "1-2-3")~"},
    {"n1,,n2", R"~(hostlist: "n1,,n2" has an empty host name)~"},
    {"n1,", R"~(hostlist: "n1," has an empty host name)~"},
    {",n1", R"~(hostlist: ",n1" has an empty host name)~"},
    {"n[0-99999999999]", R"~(hostlist: "n[0-99999999999]" names more than 100000 hosts)~"},
    {"r[1-100]n[1-1001]", R"~(hostlist: "r[1-100]n[1-1001]" names more than 100000 hosts)~"},
    {"a[1-50000],b[1-50001]",
     R"~(hostlist: "a[1-50000],b[1-50001]" names more than 100000 hosts)~"},
    {"[000-802802],lu", R"~(hostlist: "[000-802802],lu" names more than 100000 hosts)~"},
    {"n[0-9999999999999999999]",
     R"~(hostlist: "n[0-9999999999999999999]" has a number too large in "0-9999999999999999999")~"},
    {"n1, n2", R"~(hostlist: "n1, n2" contains whitespace)~"},
    {"n[1 - 2]", R"~(hostlist: "n[1 - 2]" contains whitespace)~"},
};

std::vector<compress_case> const compress_cases{
    {{"n1", "n2", "n3", "n7"}, "n[1-3,7]"},
    {numbered("gpu", 1, 10, 3), "gpu[001-010]"},
    {{"n8", "n9", "n10"}, "n[8-10]"},
    {{"n098", "n099", "n100"}, "n[098-100]"},
    {{"n1"}, "n1"},
    {{"login1", "n3", "n4"}, "login1,n[3-4]"},
    {{"n3", "n1"}, "n[3,1]"},
    {{"a1", "a2", "b3", "c01", "c02"}, "a[1-2],b3,c[01-02]"},
    {{"n9", "n010"}, "n[9,010]"},
    {{"n1", "a1", "n2"}, "n1,a1,n2"},
    {{"login", "n1", "n2"}, "login,n[1-2]"},
    {{"rack1-n01", "rack1-n02", "rack2-n01"}, "rack1-n[01-02],rack2-n01"},
    {{"n1-ib", "n2-ib"}, "n1-ib,n2-ib"},
    {{"n1", "n1"}, "n[1,1]"},
    {{"1", "2", "3"}, "[1-3]"},
};

std::vector<counts_case> const counts_cases{
    {"36(x2),24", {36, 36, 24}},   {"8(x2)", {8, 8}}, {"1", {1}},
    {"4,4,2", {4, 4, 2}},          {"0", {0}},        {"4294967295", {4294967295u}},
    {"2(x3),1(x1)", {2, 2, 2, 1}},
};

std::vector<error_case> const counts_errors{
    {"", R"~(counts: "" is empty)~"},
    {"36(x)", R"~(counts: "36(x)" has a malformed item "36(x)" (expected N or N(xR)))~"},
    {"(x2)", R"~(counts: "(x2)" has a malformed item "(x2)" (expected N or N(xR)))~"},
    {"abc", R"~(counts: "abc" has a malformed item "abc" (expected N or N(xR)))~"},
    {"36(x2", R"~(counts: "36(x2" has a malformed item "36(x2" (expected N or N(xR)))~"},
    {"36(y2)", R"~(counts: "36(y2)" has a malformed item "36(y2)" (expected N or N(xR)))~"},
    {"-1", R"~(counts: "-1" has a malformed item "-1" (expected N or N(xR)))~"},
    {"36(x0)", R"~(counts: "36(x0)" has a zero repeat in "36(x0)")~"},
    {"36,,24", R"~(counts: "36,,24" has an empty item)~"},
    {"36,", R"~(counts: "36," has an empty item)~"},
    {"4294967296", R"~(counts: "4294967296" has a value above 4294967295 in "4294967296")~"},
    {"99999999999999999999(x2)",
     R"~(counts: "99999999999999999999(x2)" has a value above 4294967295 in )~"
     R"~("99999999999999999999(x2)")~"},
    {"1(x100001)", R"~(counts: "1(x100001)" expands to more than 100000 values)~"},
    {"1(x99999999999999999999)",
     R"~(counts: "1(x99999999999999999999)" expands to more than 100000 values)~"},
    {"1(x99999),2(x2)", R"~(counts: "1(x99999),2(x2)" expands to more than 100000 values)~"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(hostlist)

BOOST_DATA_TEST_CASE(expands_slurm_hostlists, bdata::make(expand_cases), c)
{
    auto const r = core::expand_hostlist(c.input);
    BOOST_TEST_REQUIRE(r.has_value(), message_of(r));
    BOOST_TEST(*r == c.expected, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(rejects_malformed_hostlists, bdata::make(expand_errors), c)
{
    auto const r = core::expand_hostlist(c.input);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_AUTO_TEST_CASE(errors_name_the_variable_they_came_from)
{
    auto const r = core::expand_hostlist("n[", "SLURM_JOB_NODELIST");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == R"~(SLURM_JOB_NODELIST: "n[" has an unbalanced bracket)~");
    auto const c = core::expand_counts("8(x)", "SLURM_JOB_CPUS_PER_NODE");
    BOOST_TEST_REQUIRE(c.has_error());
    BOOST_TEST(c.error().message
               == R"~(SLURM_JOB_CPUS_PER_NODE: "8(x)" has a malformed item "8(x)" )~"
                  R"~((expected N or N(xR)))~");
}

BOOST_AUTO_TEST_CASE(expands_a_list_at_the_size_limit)
{
    auto const r = core::expand_hostlist("n[1-100000]");
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->size() == core::max_list_size);
    BOOST_TEST(r->back() == "n100000");
}

BOOST_DATA_TEST_CASE(compresses_and_round_trips, bdata::make(compress_cases), c)
{
    BOOST_TEST(core::compress_hostlist(c.hosts) == c.expected);
    auto const back = core::expand_hostlist(core::compress_hostlist(c.hosts));
    BOOST_TEST_REQUIRE(back.has_value(), message_of(back));
    BOOST_TEST(*back == c.hosts, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(compresses_nothing_to_an_empty_string)
{
    BOOST_TEST(core::compress_hostlist({}).empty());
}

BOOST_DATA_TEST_CASE(expands_count_lists, bdata::make(counts_cases), c)
{
    auto const r = core::expand_counts(c.input);
    BOOST_TEST_REQUIRE(r.has_value(), message_of(r));
    BOOST_TEST(*r == c.expected, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(rejects_malformed_count_lists, bdata::make(counts_errors), c)
{
    auto const r = core::expand_counts(c.input);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_AUTO_TEST_SUITE_END()
