// The sbatch script: whole texts for both launch shapes, the lead default from the worker
// configuration, the quoting of the per-node pid directory, every option's error message, Slurm
// time strings and sbatch's answer.
#include "torcrun/slurm/sbatch_script.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(sbatch_script)

core::sbatch_request base_request()
{
    core::sbatch_request r;
    r.workflow_id = 7;
    r.nodes = "2";
    r.time = "01:00:00";
    r.output_dir = "/scratch/out";
    r.torcrun_path = "/opt/torcrun/bin/torcrun";
    return r;
}

BOOST_AUTO_TEST_CASE(one_slurm_mode_worker)
{
    auto r = base_request();
    r.account = "proj";
    r.partition = "gpu";
    r.qos = "high";
    r.gpus_per_node = "4";
    r.cpus_per_task = "8";
    r.mem = "16G";
    r.config_path = "/home/u/my worker.json";
    r.url = "http://head:8080/torc-service/v1";
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(*text == "#!/bin/bash\n"
                        "#SBATCH --job-name=torcrun_wf7\n"
                        "#SBATCH --account=proj\n"
                        "#SBATCH --partition=gpu\n"
                        "#SBATCH --qos=high\n"
                        "#SBATCH --nodes=2\n"
                        "#SBATCH --ntasks-per-node=1\n"
                        "#SBATCH --time=01:00:00\n"
                        "#SBATCH --gpus-per-node=4\n"
                        "#SBATCH --cpus-per-task=8\n"
                        "#SBATCH --mem=16G\n"
                        "#SBATCH --output=/scratch/out/slurm_output_wf7_sl%j.o\n"
                        "#SBATCH --error=/scratch/out/slurm_output_wf7_sl%j.e\n"
                        "#SBATCH --signal=B:USR1@90\n"
                        "\n# One slurm-mode worker for the whole allocation; exec makes it the "
                        "batch shell,\n# so the USR1 warning of --signal=B: reaches it directly.\n"
                        "exec /opt/torcrun/bin/torcrun worker 7 --mode slurm --config "
                        "'/home/u/my worker.json' --url http://head:8080/torc-service/v1 "
                        "--output-dir /scratch/out\n");
}

// The CA file of an https server reaches the workers with the URL.
BOOST_AUTO_TEST_CASE(the_workers_get_the_ca_file)
{
    auto r = base_request();
    r.url = "https://head:8443/torc-service/v1";
    r.tls_ca_cert = "/etc/torc/site ca.pem";
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find(" --url https://head:8443/torc-service/v1 --tls-ca-cert "
                          "'/etc/torc/site ca.pem' --output-dir ") != std::string::npos,
               *text);
}

BOOST_AUTO_TEST_CASE(per_node_workers)
{
    auto r = base_request();
    r.job_name = "gpu_batch";
    r.exclusive = true;
    r.per_node_workers = true;
    r.signal_lead = "300";
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(*text == "#!/bin/bash\n"
                        "#SBATCH --job-name=gpu_batch\n"
                        "#SBATCH --nodes=2\n"
                        "#SBATCH --ntasks-per-node=1\n"
                        "#SBATCH --time=01:00:00\n"
                        "#SBATCH --exclusive\n"
                        "#SBATCH --output=/scratch/out/slurm_output_wf7_sl%j.o\n"
                        "#SBATCH --error=/scratch/out/slurm_output_wf7_sl%j.e\n"
                        "#SBATCH --signal=B:USR1@300\n"
                        "\n# One direct-mode worker per node. USR1 from --signal=B: reaches only "
                        "this shell,\n# and it must reach the workers alone: srun would forward "
                        "it to every process of\n# the worker step, the jobs too, which would die "
                        "of it before their worker drains.\n# So each worker writes its pid (exec "
                        "keeps it) to a file named after its node, and\n# the trap signals that "
                        "pid from a short step on each node.\n"
                        "mkdir -p /scratch/out/workers\n"
                        "pids=/scratch/out/workers/sl$SLURM_JOB_ID\n"
                        "srun --ntasks-per-node=1 --overlap --mpi=none --kill-on-bad-exit=0 "
                        "--wait=0 \\\n"
                        "    bash -c 'echo $$ >\"$0.$SLURMD_NODENAME.pid\"; exec \"$@\"' "
                        "\"$pids\" \\\n"
                        "    /opt/torcrun/bin/torcrun worker 7 --mode direct --output-dir "
                        "/scratch/out &\n"
                        "workers=$!\n"
                        "signal_workers() {\n"
                        "    srun --ntasks-per-node=1 --overlap --mpi=none --kill-on-bad-exit=0 "
                        "\\\n"
                        "        bash -c 'kill -USR1 \"$(cat \"$0.$SLURMD_NODENAME.pid\")\"' "
                        "\"$pids\"\n"
                        "}\n"
                        "trap signal_workers USR1\n"
                        "# wait returns early whenever a trapped signal arrives: wait again until "
                        "srun has\n# ended, then once more for its exit status, which bash keeps "
                        "(srun may have been\n# reaped while the trap ran, and wait's own status "
                        "was then the signal's).\n"
                        "while kill -0 \"$workers\" 2>/dev/null; do\n"
                        "    wait \"$workers\"\n"
                        "done\n"
                        "wait \"$workers\"\n"
                        "status=$?\n"
                        "rm -f \"$pids\".*.pid\n"
                        "exit \"$status\"\n");
}

// The pid files live under the output directory, which the shell must read as one word even
// when it holds characters the shell would expand ($, *, ;): both lines quote it.
BOOST_AUTO_TEST_CASE(per_node_pid_directory_is_quoted)
{
    auto r = base_request();
    r.output_dir = "/scratch/a$b;*";
    r.per_node_workers = true;
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find("\nmkdir -p '/scratch/a$b;*/workers'\n") != std::string::npos);
    BOOST_TEST(text->find("\npids='/scratch/a$b;*/workers'/sl$SLURM_JOB_ID\n") !=
               std::string::npos);
}

// The CPUs of each node: --cpus-per-task as given, else whole nodes (--exclusive), given or by
// default; --ntasks-per-node=1 alone would hold one CPU per node and make the job steps queue.
struct cpu_case {
    std::string name;
    std::optional<std::string> cpus_per_task;
    bool exclusive;
    std::string lines;  // the #SBATCH lines between --time and --output
};
std::ostream& operator<<(std::ostream& os, cpu_case const& c) { return os << c.name; }

std::vector<cpu_case> const cpu_cases{
    {"neither: exclusive by default", std::nullopt, false, "#SBATCH --exclusive\n"},
    {"exclusive given", std::nullopt, true, "#SBATCH --exclusive\n"},
    {"cpus-per-task given", "8", false, "#SBATCH --cpus-per-task=8\n"},
};

BOOST_DATA_TEST_CASE(cpus_of_each_node, bdata::make(cpu_cases), c)
{
    auto r = base_request();
    r.cpus_per_task = c.cpus_per_task;
    r.exclusive = c.exclusive;
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    auto const from = text->find("#SBATCH --time=01:00:00\n");
    auto const to = text->find("#SBATCH --output=");
    BOOST_TEST_REQUIRE((from != std::string::npos && to != std::string::npos));
    auto const start = from + std::string("#SBATCH --time=01:00:00\n").size();
    BOOST_TEST(text->substr(start, to - start) == c.lines);
}

// serialize_allocations: the chain's name replaces the job name and joins the singleton chain;
// a dependency in extra or in the defaults wins, and then no singleton line is written.
BOOST_AUTO_TEST_CASE(singleton_chain)
{
    auto r = base_request();
    r.job_name = "torcrun_wf7_work_a0_1";
    r.singleton_chain = "torc-wf7-sched3";
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->starts_with("#!/bin/bash\n"
                                 "#SBATCH --job-name=torc-wf7-sched3\n"
                                 "#SBATCH --dependency=singleton\n"
                                 "#SBATCH --nodes=2\n"),
               *text);
    auto with_extra = r;
    with_extra.extra = "--dependency=afterok:41";
    auto const extra_text = core::render_sbatch_script(with_extra, core::worker_config{});
    BOOST_TEST_REQUIRE(extra_text.has_value(), extra_text.error().message);
    BOOST_TEST(extra_text->find("singleton") == std::string::npos, *extra_text);
    BOOST_TEST(extra_text->find("#SBATCH --dependency=afterok:41\n") != std::string::npos);
    BOOST_TEST(extra_text->find("#SBATCH --job-name=torc-wf7-sched3\n") != std::string::npos);
    auto with_default = r;
    with_default.more_options = {{"dependency", "afterany:40"}};
    auto const default_text = core::render_sbatch_script(with_default, core::worker_config{});
    BOOST_TEST_REQUIRE(default_text.has_value(), default_text.error().message);
    BOOST_TEST(default_text->find("singleton") == std::string::npos, *default_text);
    auto const plain = core::render_sbatch_script(base_request(), core::worker_config{});
    BOOST_TEST_REQUIRE(plain.has_value());
    BOOST_TEST(plain->find("--dependency") == std::string::npos);
}

// srun_mpi replaces `none` on the workers' srun only (the signal step keeps none); the startup
// delay reaches the worker line when above 0, in both launch shapes.
BOOST_AUTO_TEST_CASE(srun_mpi_and_startup_delay)
{
    auto r = base_request();
    r.per_node_workers = true;
    r.srun_mpi = "pmi2";
    r.startup_delay_seconds = 2;
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find("srun --ntasks-per-node=1 --overlap --mpi=pmi2 --kill-on-bad-exit=0 "
                          "--wait=0 \\\n") != std::string::npos, *text);
    BOOST_TEST(text->find("    srun --ntasks-per-node=1 --overlap --mpi=none --kill-on-bad-exit=0 "
                          "\\\n") != std::string::npos, *text);
    BOOST_TEST(text->find("worker 7 --mode direct --output-dir /scratch/out "
                          "--startup-delay-seconds 2 &\n") != std::string::npos, *text);
    auto slurm_mode = base_request();
    slurm_mode.startup_delay_seconds = 10;
    auto const one = core::render_sbatch_script(slurm_mode, core::worker_config{});
    BOOST_TEST_REQUIRE(one.has_value(), one.error().message);
    BOOST_TEST(one->find("--output-dir /scratch/out --startup-delay-seconds 10\n") !=
                   std::string::npos, *one);
    auto const none = core::render_sbatch_script(base_request(), core::worker_config{});
    BOOST_TEST_REQUIRE(none.has_value());
    BOOST_TEST(none->find("--startup-delay-seconds") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(lead_is_grace_plus_drain_rounded_up)
{
    core::worker_config config;
    config.termination.grace_seconds = 12.5;
    config.termination.drain_buffer_seconds = 20.25;
    BOOST_TEST(core::default_signal_lead(config) == 33);
    auto const text = core::render_sbatch_script(base_request(), config);
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find("#SBATCH --signal=B:USR1@33\n") != std::string::npos);
}

struct error_case {
    std::string name;
    std::function<void(core::sbatch_request&)> change;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, error_case const& c) { return os << c.name; }

std::vector<error_case> const errors{
    {"nodes zero", [](auto& r) { r.nodes = "0"; }, "--nodes: \"0\" must be at least 1"},
    {"nodes text", [](auto& r) { r.nodes = "two"; }, "--nodes: \"two\" is not a whole number"},
    {"gpus negative", [](auto& r) { r.gpus_per_node = "-1"; },
     "--gpus-per-node: \"-1\" must be at least 0"},
    {"cpus zero", [](auto& r) { r.cpus_per_task = "0"; },
     "--cpus-per-task: \"0\" must be at least 1"},
    {"cpus and exclusive",
     [](auto& r) {
         r.cpus_per_task = "4";
         r.exclusive = true;
     },
     "--exclusive: cannot be combined with --cpus-per-task: \"4\""},
    {"time", [](auto& r) { r.time = "1h"; },
     "--time: \"1h\" is not a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, "
     "above 0)"},
    {"time empty", [](auto& r) { r.time = ""; },
     "--time: \"\" is not a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, "
     "above 0)"},
    {"time shorter than the lead", [](auto& r) { r.time = "1"; },
     "--time: \"1\" (60 s) leaves no time before the USR1 warning, which comes 90 s before the "
     "end (--signal-lead)"},
    {"lead zero", [](auto& r) { r.signal_lead = "0"; },
     "--signal-lead: \"0\" must be at least 1"},
    {"lead too long", [](auto& r) { r.signal_lead = "70000"; },
     "--signal-lead: \"70000\" must be at most 65535"},
    {"mem", [](auto& r) { r.mem = "16GB"; },
     "--mem: \"16GB\" is not a Slurm memory size (MB, or a number with K, M, G or T)"},
    {"partition with a space", [](auto& r) { r.partition = "gpu debug"; },
     "--partition: \"gpu debug\" cannot go on an #SBATCH line (whitespace, quotes or "
     "backslashes)"},
    {"account empty", [](auto& r) { r.account = ""; }, "--account: \"\" is empty"},
    {"job name quote", [](auto& r) { r.job_name = "a'b"; },
     "--job-name: \"a'b\" cannot go on an #SBATCH line (whitespace, quotes or backslashes)"},
    {"output dir with a space", [](auto& r) { r.output_dir = "/my out"; },
     "--output-dir: \"/my out\" cannot go on an #SBATCH line (whitespace, quotes or "
     "backslashes)"},
    {"srun_mpi two words", [](auto& r) { r.srun_mpi = "pmix --x"; },
     "srun_mpi: \"pmix --x\" must be one word of letters, digits and + _ . -"},
    {"srun_mpi empty", [](auto& r) { r.srun_mpi = ""; },
     "srun_mpi: \"\" must be one word of letters, digits and + _ . -"},
    {"chain name quote", [](auto& r) { r.singleton_chain = "a\"b"; },
     "--job-name: \"a\"b\" cannot go on an #SBATCH line (whitespace, quotes or backslashes)"},
    {"relative torcrun", [](auto& r) { r.torcrun_path = "bin/torcrun"; },
     "--torcrun: \"bin/torcrun\" is not an absolute path"},
};

BOOST_DATA_TEST_CASE(options_are_checked, bdata::make(errors), sample)
{
    auto r = base_request();
    sample.change(r);
    auto const text = core::render_sbatch_script(r, core::worker_config{});
    BOOST_TEST_REQUIRE(!text.has_value());
    BOOST_TEST(text.error().message == sample.message);
}

struct time_case {
    std::string text;
    std::optional<std::int64_t> seconds;
};
std::ostream& operator<<(std::ostream& os, time_case const& c) { return os << c.text; }

std::vector<time_case> const times{
    {"30", 1800},         {"30:15", 1815},      {"01:00:00", 3600}, {"2-00", 172800},
    {"1-02:03", 93780},   {"1-02:03:04", 93784}, {"", std::nullopt}, {"1h", std::nullopt},
    {"1:2:3:4", std::nullopt}, {"-5", std::nullopt}, {"1-", std::nullopt},
    {"1::2", std::nullopt},
};

BOOST_DATA_TEST_CASE(slurm_times, bdata::make(times), sample)
{
    BOOST_TEST(core::parse_slurm_time(sample.text).value_or(-1) == sample.seconds.value_or(-1));
}

BOOST_AUTO_TEST_CASE(sbatch_answer)
{
    BOOST_TEST(core::parse_sbatch_job_id("Submitted batch job 42\n").value() == 42);
    BOOST_TEST(core::parse_sbatch_job_id("sbatch: warning: x\nSubmitted batch job 7").value() ==
               7);
    auto const bad = core::parse_sbatch_job_id("something else\n");
    BOOST_TEST_REQUIRE(!bad.has_value());
    BOOST_TEST(bad.error().message == "sbatch: no job id in \"something else\"");
}

BOOST_AUTO_TEST_SUITE_END()
