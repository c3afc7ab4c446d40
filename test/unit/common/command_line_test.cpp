// What command.txt shows and where an attempt's files go: shell quoting of odd words, argv
// lines, srun step names and the attempt directory layout for several output directories.
#include "torcrun/worker/launch_plan.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(command_line)

namespace {

struct quote_case {
    std::string word;
    std::string quoted;
};

std::ostream& operator<<(std::ostream& os, quote_case const& c)
{
    return os << c.quoted;
}

std::vector<quote_case> const quote_cases{
    {"", "''"},
    {"plain", "plain"},
    {"--mem=2048M", "--mem=2048M"},
    {"/usr/bin/env", "/usr/bin/env"},
    {"user@host:/p,q%+_-.", "user@host:/p,q%+_-."},
    {"n[1-2]", "'n[1-2]'"},
    {"python train.py --lr 0.1", "'python train.py --lr 0.1'"},
    {"it's", "'it'\\''s'"},
    {"'", "''\\'''"},
    {"$HOME", "'$HOME'"},
    {"echo \"hi\" && exit 3", "'echo \"hi\" && exit 3'"},
    {"line1\nline2", "'line1\nline2'"},
    {"*.txt", "'*.txt'"},
    {"~/x", "'~/x'"},
    {"a\\b", "'a\\b'"},
    {"é", "'é'"},
    {"tab\there", "'tab\there'"},
};

}  // namespace

BOOST_DATA_TEST_CASE(shell_quote, bdata::make(quote_cases), c)
{
    BOOST_TEST(core::shell_quote(c.word) == c.quoted);
}

namespace {

struct line_case {
    std::vector<std::string> argv;
    std::string line;
};

std::ostream& operator<<(std::ostream& os, line_case const& c)
{
    return os << c.line;
}

std::vector<line_case> const line_cases{
    {{}, ""},
    {{"bash", "-c", ""}, "bash -c ''"},
    {{"bash", "-c", "python train.py --lr 0.1"}, "bash -c 'python train.py --lr 0.1'"},
    {{"srun", "--jobid=6", "--nodelist=n[1-2]", "bash", "-c", "echo 'x' | wc -l"},
     "srun --jobid=6 '--nodelist=n[1-2]' bash -c 'echo '\\''x'\\'' | wc -l'"},
    {{"A=1", "B=2"}, "'A=1' B=2"},
};

}  // namespace

BOOST_DATA_TEST_CASE(render_command_line, bdata::make(line_cases), c)
{
    BOOST_TEST(core::render_command_line(c.argv) == c.line);
}

namespace {

struct path_case {
    std::string output_dir;
    core::torc_job_identity id;
    std::string dir;
    std::string stdio_stem;  // the stdio files without .o / .e
};

std::ostream& operator<<(std::ostream& os, path_case const& c)
{
    return os << c.output_dir << " -> " << c.dir;
}

core::torc_job_identity const job42{5, 42, "train_3", 1, 2, std::nullopt};

std::vector<path_case> const path_cases{
    {"/scratch/out", job42, "/scratch/out/jobs/wf5_j42/r1_a2",
     "/scratch/out/job_stdio/job_wf5_j42_r1_a2"},
    {"/scratch/out/", job42, "/scratch/out/jobs/wf5_j42/r1_a2",
     "/scratch/out/job_stdio/job_wf5_j42_r1_a2"},
    {"torc_output", job42, "torc_output/jobs/wf5_j42/r1_a2",
     "torc_output/job_stdio/job_wf5_j42_r1_a2"},
    {"", job42, "jobs/wf5_j42/r1_a2", "job_stdio/job_wf5_j42_r1_a2"},
    {"/", job42, "/jobs/wf5_j42/r1_a2", "/job_stdio/job_wf5_j42_r1_a2"},
    {"out", {123456789012, 9, "", 10, 11, std::nullopt}, "out/jobs/wf123456789012_j9/r10_a11",
     "out/job_stdio/job_wf123456789012_j9_r10_a11"},
};

}  // namespace

BOOST_DATA_TEST_CASE(attempt_directory_layout, bdata::make(path_cases), c)
{
    auto const paths = core::attempt_log_paths(c.output_dir, c.id);
    BOOST_TEST((paths == core::attempt_paths{c.dir, c.stdio_stem + ".o", c.stdio_stem + ".e",
                                             c.dir + "/command.txt", c.dir + "/environment.txt",
                                             c.dir + "/result.json", c.dir + "/usage.json"}));
}

BOOST_AUTO_TEST_CASE(step_names)
{
    BOOST_TEST(core::step_name(job42) == "wf5_j42_r1_a2");
    BOOST_TEST(core::step_name({123456789012, 9, "", 10, 11, std::nullopt}) ==
               "wf123456789012_j9_r10_a11");
}

BOOST_AUTO_TEST_SUITE_END()
