// Every error expand_workflow reports (docs/TORC-COMPATIBILITY.md §4.8 with torcrun's messages),
// asserted verbatim: the entry's position, the entry as written and as expanded, the field and
// value.
#include "spec_support.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

struct error_case {
    std::string label;
    std::string text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << c.label;
}

std::vector<error_case> const error_cases{
    {"bad parameter value",
     "{name:'w', jobs:[{name:'a_{i}', command:'c', parameters:{i:'0:1:0.25'}}]}",
     "t.json5:1:18: jobs[0] \"a_{i}\": parameter \"i\": \"0:1:0.25\" is an integer range with a "
     "non-integer step \"0.25\""},
    {"bad parameter in the pool used by a file",
     "{name:'w', parameters:{i:'1:2:0'}, jobs:[], files:[{name:'f{i}', path:'p', "
     "use_parameters:['i']}]}",
     "t.json5:1:52: files[0] \"f{i}\": parameter \"i\": \"1:2:0\" has a zero step"},
    {"bad parameter on user data",
     "{name:'w', jobs:[], user_data:[{name:'u{i}', parameters:{i:'a:b'}}]}",
     "t.json5:1:32: user_data[0] \"u{i}\": parameter \"i\": \"a:b\" is a range whose start and end "
     "are not numbers"},
    {"zip lengths differ",
     "{name:'w', jobs:[{name:'t_{d}_{m}', command:'c', parameters:{d:\"['a','b']\", m:\"['x']\"}, "
     "parameter_mode:'zip'}]}",
     "t.json5:1:18: jobs[0] \"t_{d}_{m}\": All parameters must have the same number of values when "
     "using 'zip' mode. Parameter 'd' has 2 values, but 'm' has 1 values."},
    {"unknown parameter_mode", "{name:'w', jobs:[{name:'t', command:'c', parameter_mode:'Zip'}]}",
     "t.json5:1:18: jobs[0] \"t\": parameter_mode: \"Zip\" is neither \"product\" nor \"zip\""},
    {"duplicate file after expansion",
     "{name:'w', jobs:[], files:[{name:'raw_a', path:'p'}, {name:'raw_{d}', path:'q', "
     "parameters:{d:\"['b','a']\"}}]}",
     "t.json5:1:54: files[1] \"raw_{d}\" as \"raw_a\": the name \"raw_a\" is already used by "
     "files[0] \"raw_a\""},
    {"duplicate file within a template",
     "{name:'w', jobs:[], files:[{name:'f', path:'p{i}', parameters:{i:'1:2'}}]}",
     "t.json5:1:28: files[0] \"f\": more than one expansion is named \"f\""},
    {"duplicate user data", "{name:'w', jobs:[], user_data:[{name:'u'}, {name:'u'}]}",
     "t.json5:1:44: user_data[1] \"u\": the name \"u\" is already used by user_data[0] \"u\""},
    {"duplicate job names across entries",
     "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b', command:'c'}, {name:'a', command:'d'}]}",
     "t.json5:1:68: jobs[2] \"a\": the name \"a\" is already used by jobs[0] \"a\" at t.json5:1:18"
     "; names must be unique after expansion (for a fan-in, drop the waiting job's parameters "
     "and use depends_on_regexes)"},
    {"duplicate job names across templates",
     "{name:'w', jobs:[{name:'s_{i}', command:'c', parameters:{i:'1:2'}}, {name:'s_{k}', "
     "command:'c', parameters:{k:'2:3'}}]}",
     "t.json5:1:69: jobs[1] \"s_{k}\" as \"s_2\": the name \"s_2\" is already used by jobs[0] "
     "\"s_{i}\" at t.json5:1:18; names must be unique after expansion (for a fan-in, drop the "
     "waiting job's parameters and use depends_on_regexes)"},
    {"expansions sharing a name differ in command",
     "{name:'w', jobs:[{name:'merge', command:'merge {k}', parameters:{k:'1:3'}}]}",
     "t.json5:1:18: jobs[0] \"merge\": expansions named \"merge\" differ in command (\"merge 1\" "
     "and \"merge 2\"); torcrun makes one job per name, so they must agree"},
    {"expansions sharing a name differ in resource requirements",
     "{name:'w', resource_requirements:[{name:'r1', num_cpus:1, memory:'1g'}, {name:'r2', "
     "num_cpus:1, memory:'1g'}], jobs:[{name:'m', command:'c', resource_requirements:'r{k}', "
     "parameters:{k:'1:2'}}]}",
     "t.json5:1:118: jobs[0] \"m\": expansions named \"m\" differ in resource_requirements (\"r1\" "
     "and \"r2\"); torcrun makes one job per name, so they must agree"},
    {"expansions sharing a name differ in script",
     "{name:'w', jobs:[{name:'m', command:'c', invocation_script:'s{k}', parameters:{k:'1:2'}}]}",
     "t.json5:1:18: jobs[0] \"m\": expansions named \"m\" differ in invocation_script (\"s1\" and "
     "\"s2\"); torcrun makes one job per name, so they must agree"},
    {"unknown resource requirements",
     "{name:'w', jobs:[{name:'a_{i}', command:'c', resource_requirements:'gpu_{i}', "
     "parameters:{i:'[3]'}}]}",
     "t.json5:1:18: jobs[0] \"a_{i}\" as \"a_3\": resource_requirements \"gpu_{i}\" (here "
     "\"gpu_3\") names no resource_requirements entry"},
    {"unknown scheduler", "{name:'w', jobs:[{name:'a', command:'c', scheduler:'s'}]}",
     "t.json5:1:18: jobs[0] \"a\": scheduler \"s\" names no slurm_schedulers entry"},
    {"unknown failure handler",
     "{name:'w', jobs:[{name:'a', command:'c', failure_handler:'retry'}]}",
     "t.json5:1:18: jobs[0] \"a\": failure_handler \"retry\" names no failure_handlers entry"},
    {"unknown depends_on",
     "{name:'w', jobs:[{name:'gen_1', command:'c'}, {name:'fit_{i}', command:'c', "
     "depends_on:['gen_{i}'], parameters:{i:'1:2'}}]}",
     "t.json5:1:47: jobs[1] \"fit_{i}\" as \"fit_2\": depends_on \"gen_{i}\" (here \"gen_2\") "
     "names no job"},
    {"depends_on twice",
     "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b', command:'c', depends_on:['a', 'a']}]}",
     "t.json5:1:43: jobs[1] \"b\": depends_on lists \"a\" twice"},
    {"depends_on twice after expansion",
     "{name:'w', jobs:[{name:'a1', command:'c'}, {name:'b{i}', command:'c', depends_on:['a{i}', "
     "'a1'], parameters:{i:'[1]'}}]}",
     "t.json5:1:44: jobs[1] \"b{i}\" as \"b1\": depends_on lists \"a1\" twice"},
    {"depends_on a template with no expansions",
     "{name:'w', jobs:[{name:'a{i}', command:'c', parameters:{i:'[]'}}, {name:'b', command:'c', "
     "depends_on:['a1']}]}",
     "t.json5:1:67: jobs[1] \"b\": depends_on \"a1\" names no job"},
    {"unknown input file", "{name:'w', jobs:[{name:'a', command:'c', input_files:['f']}]}",
     "t.json5:1:18: jobs[0] \"a\": input_files \"f\" names no file"},
    {"output file twice",
     "{name:'w', files:[{name:'f', path:'p'}], jobs:[{name:'a', command:'c', output_files:['f', "
     "'f']}]}",
     "t.json5:1:48: jobs[0] \"a\": output_files lists \"f\" twice"},
    {"unknown input user data", "{name:'w', jobs:[{name:'a', command:'c', input_user_data:['u']}]}",
     "t.json5:1:18: jobs[0] \"a\": input_user_data \"u\" names no user data"},
    {"unknown output user data",
     "{name:'w', jobs:[{name:'a', command:'c', output_user_data:['u']}]}",
     "t.json5:1:18: jobs[0] \"a\": output_user_data \"u\" names no user data"},
    {"invalid depends_on regex",
     "{name:'w', jobs:[{name:'a', command:'c', depends_on_regexes:['fit_(']}]}",
     "t.json5:1:18: jobs[0] \"a\": depends_on_regexes \"fit_(\" is not a valid regular expression: "
     "missing ): fit_("},
    {"look-ahead is not RE2",
     "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b', command:'c', "
     "depends_on_regexes:['a(?=x)']}]}",
     "t.json5:1:43: jobs[1] \"b\": depends_on_regexes \"a(?=x)\" is not a valid regular "
     "expression: invalid perl operator: (?="},
    {"depends_on regex matching nothing",
     "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b', command:'c', "
     "depends_on_regexes:['^z']}]}",
     "t.json5:1:43: jobs[1] \"b\": depends_on_regexes \"^z\" matches no job that is not already "
     "listed"},
    {"depends_on regex matching only listed names",
     "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b', command:'c', depends_on:['a'], "
     "depends_on_regexes:['^a$']}]}",
     "t.json5:1:43: jobs[1] \"b\": depends_on_regexes \"^a$\" matches no job that is not already "
     "listed"},
    {"templated regex matching nothing",
     "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b{i}', command:'c', "
     "depends_on_regexes:['^x{i}'], parameters:{i:'[1]'}}]}",
     "t.json5:1:43: jobs[1] \"b{i}\" as \"b1\": depends_on_regexes \"^x{i}\" (here \"^x1\") "
     "matches no job that is not already listed"},
    {"file regex matching nothing",
     "{name:'w', files:[{name:'f', path:'p'}], jobs:[{name:'a', command:'c', "
     "input_file_regexes:['^g']}]}",
     "t.json5:1:48: jobs[0] \"a\": input_file_regexes \"^g\" matches no file that is not already "
     "listed"},
    {"output file regex invalid",
     "{name:'w', files:[{name:'f', path:'p'}], jobs:[{name:'a', command:'c', "
     "output_file_regexes:['[']}]}",
     "t.json5:1:48: jobs[0] \"a\": output_file_regexes \"[\" is not a valid regular expression: "
     "missing ]: ["},
    {"user data regex matching nothing",
     "{name:'w', user_data:[{name:'u'}], jobs:[{name:'a', command:'c', "
     "output_user_data_regexes:['^v']}]}",
     "t.json5:1:42: jobs[0] \"a\": output_user_data_regexes \"^v\" matches no user data that is "
     "not already listed"},
    {"cycle of two",
     "{name:'w', jobs:[{name:'a', command:'c', depends_on:['b']}, {name:'b', command:'c', "
     "depends_on:['a']}]}",
     "t.json5:1:18: jobs: dependency cycle \"a\" -> \"b\" -> \"a\" (each job waits for the next)"},
    {"self-dependency through a regex",
     "{name:'w', jobs:[{name:'stage_1', command:'c'}, {name:'stage_2', command:'c', "
     "depends_on_regexes:['^stage_']}]}",
     "t.json5:1:49: jobs: dependency cycle \"stage_2\" -> \"stage_2\" (each job waits for the "
     "next)"},
    {"cycle of three after a chain",
     "{name:'w', jobs:[{name:'x', command:'c'}, {name:'a', command:'c', depends_on:['x', 'c']}, "
     "{name:'b', command:'c', depends_on:['a']}, {name:'c', command:'c', depends_on:['b']}]}",
     "t.json5:1:43: jobs: dependency cycle \"a\" -> \"c\" -> \"b\" -> \"a\" (each job waits for "
     "the next)"},
    {"a job reading and writing one file",
     "{name:'w', files:[{name:'db', path:'p'}], jobs:[{name:'update', command:'u', "
     "input_files:['db'], output_files:['db']}]}",
     "t.json5:1:49: jobs: dependency cycle \"update\" -> \"update\" (each job waits for the next; "
     "some wait through files or user data, which Torc 0.10 does not check, so these jobs would "
     "never become ready)"},
    {"cycle through files",
     "{name:'w', files:[{name:'f', path:'p'}, {name:'g', path:'q'}], jobs:[{name:'a', command:'c', "
     "input_files:['f'], output_files:['g']}, {name:'b', command:'c ${files.input.g} "
     "${files.output.f}'}]}",
     "t.json5:1:70: jobs: dependency cycle \"a\" -> \"b\" -> \"a\" (each job waits for the next; "
     "some wait through files or user data, which Torc 0.10 does not check, so these jobs would "
     "never become ready)"},
    {"cycle through user data and an explicit edge",
     "{name:'w', user_data:[{name:'u', data:1}], jobs:[{name:'a', command:'c', depends_on:['b']}, "
     "{name:'b', command:'c', input_user_data:['u']}, {name:'p', command:'c', "
     "output_user_data:['u'], depends_on:['a']}]}",
     "t.json5:1:50: jobs: dependency cycle \"a\" -> \"b\" -> \"p\" -> \"a\" (each job waits for "
     "the next; some wait through files or user data, which Torc 0.10 does not check, so these "
     "jobs would never become ready)"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_expansion_errors)

BOOST_DATA_TEST_CASE(error_message, bdata::make(error_cases), c)
{
    auto const parsed = read(c.text);
    BOOST_TEST_REQUIRE(message_of(parsed) == "ok");
    BOOST_TEST(message_of(spec::expand_workflow(*parsed)) == c.expected);
}

BOOST_AUTO_TEST_SUITE_END()
