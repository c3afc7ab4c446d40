// The KDL 2.0 reader: values and their types, strings (quoted, escaped, raw, multi-line), numbers,
// comments and slashdash, properties, children, positions, and every syntax error verbatim with
// its line:column. A document is rendered as one line: `name(args; k=v){children}` with typed
// values (`s:x`, `i:5`, `f:1.5`, `b:true`, `null`).
#include "torcrun/common/kdl_reader.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

namespace torcrun::core {
std::ostream& operator<<(std::ostream& os, source_position const& p)
{
    return os << p.line << ":" << p.column;
}
}  // namespace torcrun::core

namespace {

void render_value(std::ostream& os, core::kdl_value const& v)
{
    if (auto const* s = v.as_string()) os << "s:" << *s;
    else if (auto const* i = v.as_integer()) os << "i:" << *i;
    else if (auto const* b = v.as_bool()) os << "b:" << (*b ? "true" : "false");
    else if (auto const* d = std::get_if<double>(&v.data)) os << "f:" << *d;
    else os << "null";
}

void render(std::ostream& os, std::vector<core::kdl_node> const& nodes)
{
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        auto const& node = nodes[n];
        os << (n ? " " : "") << node.name << "(";
        for (std::size_t e = 0; e < node.entries.size(); ++e) {
            os << (e ? "; " : "");
            if (node.entries[e].name) os << *node.entries[e].name << "=";
            render_value(os, node.entries[e].value);
        }
        os << ")";
        if (node.children) {
            os << "{";
            render(os, *node.children);
            os << "}";
        }
    }
}

std::string read(std::string const& text)
{
    auto const doc = core::read_kdl(text, "t.kdl");
    if (!doc) return doc.error().message;
    std::ostringstream os;
    render(os, doc->nodes);
    return os.str();
}

struct kdl_case {
    std::string text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, kdl_case const& c) { return os << c.text; }

std::vector<kdl_case> const accepted{
    {"", ""},
    {"node", "node()"},
    {"a; b\nc", "a() b() c()"},
    {"\xEF\xBB\xBFnode 1", "node(i:1)"},
    // values: identifier strings, keywords, numbers
    {"n bare \"quoted\" #true #false #null", "n(s:bare; s:quoted; b:true; b:false; null)"},
    {"n 0 -7 +7 1_000 0x1F 0o17 0b101 -0x10", "n(i:0; i:-7; i:7; i:1000; i:31; i:15; i:5; i:-16)"},
    {"n 1.5 -2.5e3 1e2 1_0.2_5", "n(f:1.5; f:-2500; f:100; f:10.25)"},
    {"n 9223372036854775807 -9223372036854775808",
     "n(i:9223372036854775807; i:-9223372036854775808)"},
    {"n #inf #-inf", "n(f:inf; f:-inf)"},
    {"n - + . -abc .x +y", "n(s:-; s:+; s:.; s:-abc; s:.x; s:+y)"},
    {"n a,b <c> x.y-z", "n(s:a,b; s:<c>; s:x.y-z)"},
    {"nœud ünïcode", "nœud(s:ünïcode)"},
    // strings: escapes, whitespace escape, raw strings
    {R"(n "a\"b\\c\n\t\sd")", "n(s:a\"b\\c\n\t d)"},
    {R"(n "\u{41}\u{1F600}")", "n(s:A\xF0\x9F\x98\x80)"},
    {"n \"a\\   \n   b\"", "n(s:ab)"},
    {"n \"a\\  \" b", "n(s:a; s:b)"},
    {"n \"\\\\\" b", "n(s:\\; s:b)"},
    {R"(n #"no \n escape"# ##"has "# inside"##)", "n(s:no \\n escape; s:has \"# inside)"},
    {R"(n #""#)", "n(s:)"},
    // multi-line strings: dedented by the closing line, line breaks become LF
    {"n \"\"\"\n    one\n      two\n\n    three\n    \"\"\"", "n(s:one\n  two\n\nthree)"},
    {"n \"\"\"\r\n  a \\\"q\\\" \"\" b\r\n  \"\"\"", "n(s:a \"q\" \"\" b)"},
    {"n #\"\"\"\n  raw \\n\n  \"\"\"#", "n(s:raw \\n)"},
    {"n \"\"\"\n\"\"\"", "n(s:)"},
    // whitespace escapes are resolved before dedenting, also in the closing line
    {"n \"\"\"\n  foo \\\nbar\n  baz\n  \\   \"\"\"", "n(s:foo bar\nbaz)"},
    {"n \"\"\"\n    a\n   \\\n\"\"\"", "n(s: a)"},
    // properties: the rightmost of a name is kept in order, spaces around '='
    {"file \"x\" path=\"/p\" n = 5 \"k\"=#false", "file(s:x; path=s:/p; n=i:5; k=b:false)"},
    // type annotations are dropped
    {"(t)n (u8)5 k=(date)\"2024\" ( spaced )x", "n(i:5; k=s:2024; s:x)"},
    // children
    {"a {\n  b 1\n  c { d; }\n}", "a(){b(i:1) c(){d()}}"},
    {"a{b}", "a(){b()}"},
    {"a 1{ }", "a(i:1){}"},
    {"a { b }; c", "a(){b()} c()"},
    {"a {}", "a(){}"},
    // comments and slashdash
    {"// line\na /* inline /* nested */ */ 1 // end\n/* block\n */ b", "a(i:1) b()"},
    {"/-gone 1\nkept /-2 3 /-k=v {\n} ", "kept(i:3){}"},
    {"a /-{ gone } { kept }", "a(){kept()}"},
    {"a { kept } /-{ gone }", "a(){kept()}"},
    {"/-\n  gone\nkept", "kept()"},
    {"a 1 \\\n  2 \\ // comment\n  3", "a(i:1; i:2; i:3)"},
    // KDL's other line breaks and spaces
    {"a\xC2\x85" "b\x0C" "c\xE2\x80\xA8" "d\xC2\xA0" "1\x0B" "e\t2", "a() b() c() d(i:1) e(i:2)"},
};

std::vector<kdl_case> const refused{
    {"n true", "t.kdl:1:3: true is not a value in KDL 2: write #true, or \"true\" for the string"},
    {"n null", "t.kdl:1:3: null is not a value in KDL 2: write #null, or \"null\" for the string"},
    {"n nan", "t.kdl:1:3: nan is not a value in KDL 2: write #nan, or \"nan\" for the string"},
    {"n #yes", "t.kdl:1:3: unknown keyword \"#yes\" (KDL 2 has #true, #false, #null, #inf, #-inf "
               "and #nan)"},
    {"n r\"raw\"", "t.kdl:1:3: r\"...\" is a KDL 1 raw string; KDL 2 writes #\"...\"#"},
    {"n 1x", "t.kdl:1:3: \"1x\" is not a number; quote it if it is a string"},
    {"n 1.", "t.kdl:1:3: \"1.\" is not a number; quote it if it is a string"},
    {"n 0x", "t.kdl:1:3: \"0x\" is not a number; quote it if it is a string"},
    {"n 0b102", "t.kdl:1:3: \"0b102\" is not a number; quote it if it is a string"},
    {"n 01:00:00", "t.kdl:1:3: \"01:00:00\" is not a number; quote it if it is a string"},
    {"n .5", "t.kdl:1:3: \".5\" is neither a number nor a string; quote it if it is a string"},
    {"n 9223372036854775808", "t.kdl:1:3: the integer 9223372036854775808 does not fit in 64 bits"},
    {"n \"open", "t.kdl:1:3: this string is not closed by '\"'"},
    {"n \"a\nb\"", "t.kdl:1:5: a quoted string cannot span lines; write a multi-line string with "
                   "\"\"\""},
    {"n \"\\q\"", "t.kdl:1:4: unknown escape \\q (KDL 2 has \\\" \\\\ \\b \\f \\n \\r \\t \\s "
                  "\\u{...} and \\ before white space)"},
    {"n \"\\/\"", "t.kdl:1:4: unknown escape \\/ (KDL 2 has \\\" \\\\ \\b \\f \\n \\r \\t \\s "
                  "\\u{...} and \\ before white space)"},
    {"n \"\\u{D800}\"", "t.kdl:1:4: \\u{D800} is not a Unicode scalar value"},
    {"n \"\\u41\"",
     "t.kdl:1:4: a \\u escape is written \\u{1F600}: one to six hex digits in braces"},
    {"n #\"open\n\"#", "t.kdl:1:3: this raw string is not closed by \"# on its line (a multi-line "
                       "raw string starts with #\"\"\")"},
    {"n \"\"\"one\"\"\"", "t.kdl:1:3: a multi-line string's \"\"\" must end its line"},
    {"n \"\"\"\n  a\n b\n  \"\"\"", "t.kdl:3:1: this line of a multi-line string does not start "
                                  "with the white space of its closing \"\"\" line"},
    {"n \"\"\"\n  a \"\"\"", "t.kdl:2:1: the closing \"\"\" of a multi-line string must be on its "
                            "own line"},
    {"n \"\"\"\n  bar\\\n  \"\"\"", "t.kdl:2:1: the closing \"\"\" of a multi-line string must be "
                                "on its own line"},
    {"n \"\"\"\n  a\n", "t.kdl:1:3: this multi-line string is not closed by \"\"\""},
    {"a {\n  b\n", "t.kdl:1:3: this '{' is not closed by a '}'"},
    {"a }", "t.kdl:1:3: '}' without a '{' before it"},
    {"a \"x\"\"y\"", "t.kdl:1:6: expected a space, ';' or a line break, found '\"'"},
    {"a { } 1", "t.kdl:1:7: arguments and properties of node \"a\" must come before its children "
                "block"},
    {"a { } { }", "t.kdl:1:7: node \"a\" has a second children block"},
    {"a k=", "t.kdl:1:5: expected a value, found the end of the file"},
    {"a k=\n1", "t.kdl:1:5: expected a value, found a line break"},
    {"a [1]", "t.kdl:1:3: expected a value, found '['"},
    {"=a", "t.kdl:1:1: expected a node name, found '='"},
    {"1 2", "t.kdl:1:1: \"1\" is neither a number nor a string; quote it if it is a string"},
    {"a (t", "t.kdl:1:5: expected ')' closing the type annotation opened at 3, found the end of "
             "the file"},
    {"a /* open", "t.kdl:1:3: this /* comment is not closed"},
    {"a /- // nothing after it", "t.kdl:1:25: expected a value, an entry or a children block "
                                 "after /-, found the end of the file"},
    {"/-", "t.kdl:1:3: expected a node name, found the end of the file"},
    {"a \\ b", "t.kdl:1:3: a '\\' between entries must end the line (a line continuation)"},
    {"a\n b\x01", "t.kdl:2:3: the code point U+0001 may not appear in a KDL document"},
    {"a \xEF\xBB\xBF", "t.kdl:1:3: the code point U+FEFF may not appear in a KDL document"},
    {"a \xE2\x80\xAE", "t.kdl:1:3: the code point U+202E may not appear in a KDL document"},
    {"a \xC3", "t.kdl:1:3: invalid UTF-8"},
};

std::string nested(std::size_t depth)
{
    std::string text;
    for (std::size_t k = 0; k < depth; ++k) text += "a {";
    return text + std::string(depth, '}');
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kdl_reader)

BOOST_DATA_TEST_CASE(accepted_documents, bdata::make(accepted), c)
{
    BOOST_TEST(read(c.text) == c.expected);
}

BOOST_DATA_TEST_CASE(refused_documents, bdata::make(refused), c)
{
    BOOST_TEST(read(c.text) == c.expected);
}

BOOST_AUTO_TEST_CASE(positions_of_nodes_entries_and_values)
{
    auto const doc = core::read_kdl("// c\njob \"a\" {\n    x  k=  \"v\" 7\n}\n", "t.kdl");
    BOOST_TEST_REQUIRE(doc.has_value());
    auto const& job = doc->nodes.at(0);
    BOOST_TEST(job.where == (core::source_position{2, 1}));
    BOOST_TEST(job.entries.at(0).where == (core::source_position{2, 5}));
    auto const& x = job.children->at(0);
    BOOST_TEST(x.where == (core::source_position{3, 5}));
    BOOST_TEST(x.entries.at(0).where == (core::source_position{3, 8}));        // the key
    BOOST_TEST(x.entries.at(0).value.where == (core::source_position{3, 12}));  // its value
    BOOST_TEST(x.entries.at(1).value.where == (core::source_position{3, 16}));
    BOOST_TEST(*x.property("k")->as_string() == "v");
    BOOST_TEST(x.property("none") == nullptr);
}

BOOST_AUTO_TEST_CASE(the_rightmost_property_of_a_name_wins)
{
    auto const doc = core::read_kdl("f path=\"/a\" path=\"/b\"", "t.kdl");
    BOOST_TEST_REQUIRE(doc.has_value());
    BOOST_TEST(*doc->nodes.at(0).property("path")->as_string() == "/b");
}

BOOST_AUTO_TEST_CASE(children_nest_up_to_the_depth_limit)
{
    BOOST_TEST(read(nested(core::json_max_depth)).starts_with("a(){a(){"));
    BOOST_TEST(read(nested(100'000)) == "t.kdl:1:771: children blocks are nested deeper than 256");
}

BOOST_AUTO_TEST_SUITE_END()
