// Bounded input (spec_limits.hpp): YAML alias bombs stop at the alias that crosses the limit,
// deep nesting is an error in every format rather than a stack overflow, and the totals of jobs,
// files, user data and dependency edges over all templates are errors naming the template, the
// limit and the counts, found before the expansions are built.
#include "spec_support.hpp"

#include "torcrun/spec/spec_limits.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

namespace {

using namespace spec_test;
namespace bdata = boost::unit_test::data;

// `[*p,*p,*p,*p,*p,*p,*p,*p,*p]`
std::string nine_aliases(char previous)
{
    std::string out = "[";
    for (int k = 0; k < 9; ++k) out += std::string(k ? ",*" : "*") + previous;
    return out + "]";
}

// The classic "billion laughs": nine levels of nine aliases, 9^9 strings once expanded.
std::string billion_laughs()
{
    std::string text = "name: bomb\njobs: [{name: a, command: \"true\"}]\nuser_data:\n"
                       "  - name: laughs\n    data:\n"
                       "      a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\","
                       "\"lol\"]\n";
    for (char level = 'b'; level <= 'i'; ++level)
        text += std::string("      ") + level + ": &" + level + " " + nine_aliases(level - 1) + "\n";
    return text;
}

// Anchors a..e of the bomb (e holds 66,430 nodes; defining them copies 74,718), then `copies`
// aliases of e in one sequence.
std::string aliases_of_e(int copies)
{
    std::string text = "a: &a [x,x,x,x,x,x,x,x,x]\n";
    for (char level = 'b'; level <= 'e'; ++level)
        text += std::string(1, level) + ": &" + level + " " + nine_aliases(level - 1) + "\n";
    text += "many:\n";
    for (int k = 0; k < copies; ++k) text += "  - *e\n";
    return text;
}

std::string document_message(std::string const& text, std::string const& file_name)
{
    auto const doc = spec::read_spec_document(text, file_name);
    return doc ? std::string("ok") : doc.error().message;
}

struct deep_case {
    std::string file_name;
    std::string text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, deep_case const& c)
{
    return os << c.file_name << " " << c.text.substr(0, 8);
}

std::string repeated(std::string const& piece, std::size_t n)
{
    std::string out;
    out.reserve(piece.size() * n);
    for (std::size_t k = 0; k < n; ++k) out += piece;
    return out;
}

std::vector<deep_case> const deep_cases{
    {"t.json", repeated("[", 100'000),
     "t.json:1:257: nesting is deeper than 256 arrays and objects"},
    {"t.json5", repeated("[", 100'000),
     "t.json5:1:257: nesting is deeper than 256 arrays and objects"},
    {"t.json5", repeated("{a:", 100'000),
     "t.json5:1:769: nesting is deeper than 256 arrays and objects"},
    {"t.yaml", repeated("[", 100'000) + repeated("]", 100'000),
     "t.yaml:1:257: nesting is deeper than 256 sequences and mappings"},
    {"t.yaml", repeated("- ", 100'000) + "x\n",
     "t.yaml:1:513: nesting is deeper than 256 sequences and mappings"},
    {"t.txt", repeated("[", 100'000) + repeated("]", 100'000),
     "t.txt: is neither JSON5 (t.txt:1:257: nesting is deeper than 256 arrays and objects) nor "
     "YAML (t.txt:1:257: nesting is deeper than 256 sequences and mappings) nor KDL (t.txt:1:1: "
     "expected a node name, found '[')"},
    {"t.kdl", repeated("a {", 100'000),
     "t.kdl:1:771: children blocks are nested deeper than 256"},
};

// `count` templates, each `copies` expansions of kind `list`.
std::string templates(std::string const& list, int count, int copies)
{
    std::string text = "{name: 'w', ";
    if (list != "jobs") text += "jobs: [{name: 'j', command: 'x'}], ";
    text += list + ": [";
    for (int k = 0; k < count; ++k) {
        std::string const name = list == "jobs" ? "t" + std::to_string(k) + "_{i}"
                                                : list.substr(0, 1) + std::to_string(k) + "_{i}";
        text += "\n {name: '" + name + "', " + (list == "jobs" ? "command: 'x'" :
                list == "files" ? "path: '/p/{i}'" : "data: 1") +
                ", parameters: {i: '1:" + std::to_string(copies) + "'}},";
    }
    return text + "]}";
}

// `width` jobs a_i and `width` jobs b_i, each b_i waiting for every a_i through one regex.
std::string fan(int width)
{
    std::string const range = "'0:" + std::to_string(width - 1) + "'";
    return "{name: 'w', jobs: [\n {name: 'a_{i}', command: 'x', parameters: {i: " + range +
           "}},\n {name: 'b_{i}', command: 'x', depends_on_regexes: ['^a_'], parameters: {i: " +
           range + "}}]}";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_bounded_input)

BOOST_AUTO_TEST_CASE(billion_laughs_stops_at_the_alias_that_crosses_the_limit)
{
    std::string const text = billion_laughs();
    BOOST_TEST(text.size() < 600u);
    // Anchors a..f copy 672,588 nodes; the first *f of g would copy 597,871 more.
    BOOST_TEST(message_of(read(text, "bomb.yaml"))
               == "bomb.yaml:12:14: this alias would bring the nodes copied by YAML aliases to "
                  "1270459, past torcrun's limit of 1000000 (an alias bomb?); write the values "
                  "out or use fewer aliases");
}

BOOST_AUTO_TEST_CASE(aliases_up_to_the_limit_are_read)
{
    // 74,718 + 13 x 66,430 = 938,308 nodes copied: read; a 14th alias would make 1,004,738.
    auto const doc = spec::read_spec_document(aliases_of_e(13), "t.yaml");
    BOOST_TEST_REQUIRE(doc.has_value(), message_of(doc));
    BOOST_TEST(doc->root().at("many").as_array().size() == 13u);
    BOOST_TEST(doc->root().at("many").at(12).at(8).at(8).at(8).at(8).at(8).as_string() == "x");
    BOOST_TEST(document_message(aliases_of_e(14), "t.yaml")
               == "t.yaml:20:5: this alias would bring the nodes copied by YAML aliases to "
                  "1004738, past torcrun's limit of 1000000 (an alias bomb?); write the values "
                  "out or use fewer aliases");
}

BOOST_DATA_TEST_CASE(deep_nesting_is_an_error_in_every_format, bdata::make(deep_cases), c)
{
    BOOST_TEST(document_message(c.text, c.file_name) == c.expected);
}

BOOST_AUTO_TEST_CASE(ten_templates_of_a_million_jobs_are_refused_before_expanding)
{
    BOOST_TEST(message_of(expand(templates("jobs", 10, 1'000'000)))
               == "t.json5:3:2: jobs[1] \"t1_{i}\": its 1000000 expansions take the spec past "
                  "torcrun's limit of 1000000 jobs (1000000 before it, 10000000 from all "
                  "templates)");
}

BOOST_AUTO_TEST_CASE(totals_count_every_template_of_a_kind)
{
    spec::expansion_limits limits;
    limits.jobs = 10;
    limits.files = 10;
    limits.user_data = 10;
    auto const with = [&](std::string const& text) {
        auto parsed = read(text);
        BOOST_TEST_REQUIRE(parsed.has_value(), message_of(parsed));
        return message_of(spec::expand_workflow(*parsed, limits));
    };
    BOOST_TEST(with(templates("jobs", 2, 5)) == "ok");
    BOOST_TEST(with(templates("jobs", 3, 4))
               == "t.json5:4:2: jobs[2] \"t2_{i}\": its 4 expansions take the spec past "
                  "torcrun's limit of 10 jobs (8 before it, 12 from all templates)");
    BOOST_TEST(with(templates("files", 2, 5)) == "ok");
    BOOST_TEST(with(templates("files", 2, 6))
               == "t.json5:3:2: files[1] \"f1_{i}\": its 6 expansions take the spec past "
                  "torcrun's limit of 10 files (6 before it, 12 from all templates)");
    BOOST_TEST(with(templates("user_data", 11, 1))
               == "t.json5:12:2: user_data[10] \"u10_{i}\": its 1 expansions take the spec "
                  "past torcrun's limit of 10 user data entries (10 before it, 11 from all "
                  "templates)");
}

BOOST_AUTO_TEST_CASE(explicit_edges_past_the_limit_name_the_expansion_that_crosses_it)
{
    spec::expansion_limits limits;
    limits.edges = 25;
    auto parsed = read(fan(5));
    BOOST_TEST_REQUIRE(parsed.has_value(), message_of(parsed));
    auto const expanded = spec::expand_workflow(*parsed, limits);
    BOOST_TEST(expanded.has_value(), message_of(expanded));
    limits.edges = 24;
    BOOST_TEST(message_of(spec::expand_workflow(*parsed, limits))
               == "t.json5:3:2: jobs[1] \"b_{i}\" as \"b_4\": its 5 dependencies bring the spec "
                  "to 25 dependency edges, past torcrun's limit of 24");
}

BOOST_AUTO_TEST_CASE(implied_edges_count_towards_the_limit)
{
    // Three writers of f, three readers: nine implied edges, plus one explicit.
    std::string const text =
        "{name: 'w', files: [{name: 'f', path: '/f'}], jobs: [\n"
        " {name: 'w_{i}', command: 'x', output_files: ['f'], parameters: {i: '1:3'}},\n"
        " {name: 'r_{i}', command: 'x', input_files: ['f'], parameters: {i: '1:3'}},\n"
        " {name: 'last', command: 'x', depends_on: ['r_3']}]}";
    auto parsed = read(text);
    BOOST_TEST_REQUIRE(parsed.has_value(), message_of(parsed));
    spec::expansion_limits limits;
    limits.edges = 10;
    auto const expanded = spec::expand_workflow(*parsed, limits);
    BOOST_TEST_REQUIRE(expanded.has_value(), message_of(expanded));
    BOOST_TEST(spec::implied_edges(*expanded).size() == 9u);
    limits.edges = 9;
    BOOST_TEST(message_of(spec::expand_workflow(*parsed, limits))
               == "t.json5:3:2: jobs[1] \"r_{i}\" as \"r_3\": the writers of its input files and "
                  "user data bring the spec to 10 dependency edges (1 explicit, 9 implied so "
                  "far), past torcrun's limit of 9");
}

BOOST_AUTO_TEST_CASE(implied_edges_are_distinct_across_files_and_user_data)
{
    // w writes f and u, v writes u; r reads f and u, s reads u: files first, then user data,
    // each pair once.
    std::string const text =
        "{name: 'w', files: [{name: 'f', path: '/f'}], user_data: [{name: 'u'}], jobs: [\n"
        " {name: 'w', command: 'x', output_files: ['f'], output_user_data: ['u']},\n"
        " {name: 'v', command: 'x', output_user_data: ['u']},\n"
        " {name: 'r', command: 'x', input_files: ['f'], input_user_data: ['u']},\n"
        " {name: 's', command: 'x', input_user_data: ['u']}]}";
    auto const expanded = expand(text);
    BOOST_TEST_REQUIRE(expanded.has_value(), message_of(expanded));
    BOOST_TEST(join(describe(spec::implied_edges(*expanded))) == "r>w,r>v,s>w,s>v");
}

BOOST_AUTO_TEST_CASE(a_dense_fan_in_expands_to_every_edge)
{
    // 300 x 300 through one regex: 90,000 edges.
    auto const by_regex = expand(fan(300));
    BOOST_TEST_REQUIRE(by_regex.has_value(), message_of(by_regex));
    BOOST_TEST(spec::explicit_edges(*by_regex).size() == 90'000u);
    BOOST_TEST(by_regex->jobs.back().depends_on.front() == "a_0");
    BOOST_TEST(by_regex->jobs.back().depends_on.back() == "a_299");
}

BOOST_AUTO_TEST_SUITE_END()
