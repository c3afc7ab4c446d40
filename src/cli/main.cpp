// torcrun: dispatch to the subcommand named by argv[1]. Wiring only.
#include "torcrun/cli/command_hints.hpp"
#include "torcrun/cli/commands.hpp"

#include <exception>
#include <functional>
#include <iostream>
#include <string_view>
#include <vector>

namespace {

using torcrun::apps::arguments;

struct subcommand {
    std::string_view name;
    int (*run)(arguments const&);
    std::string_view summary;
};

constexpr subcommand subcommands[] = {
    {"allocation", torcrun::apps::cmd_allocation,
     "print the allocation as torcrun sees it: nodes, CPUs, memory, GPUs, mode"},
    {"slurm-script", torcrun::apps::cmd_slurm_script,
     "write (and with --submit, sbatch) the batch script of an allocation's workers"},
    {"version", torcrun::apps::cmd_version, "print the version"},
    {"config", torcrun::apps::cmd_config, "check and print the worker or server configuration"},
    {"spec", torcrun::apps::cmd_spec, "show the jobs and edges a Torc workflow spec creates"},
    // -- server app
    {"server", torcrun::apps::cmd_server, "serve the Torc REST API from a SQLite database"},
    {"submit", torcrun::apps::cmd_submit, "create and initialize a workflow from a Torc spec"},
    {"status", torcrun::apps::cmd_status, "show a workflow's run, completion and job counts"},
    {"ro-crate", torcrun::apps::cmd_ro_crate,
     "write a workflow's ro-crate-metadata.json, or record an entity"},
    {"jobs", torcrun::apps::cmd_jobs, "list a workflow's jobs with their latest return codes"},
    {"logs", torcrun::apps::cmd_logs,
     "print a job's stdout or stderr (by job name or id; --follow while it runs)"},
    {"workflows", torcrun::apps::cmd_workflows, "list the server's workflows with their status"},
    {"report", torcrun::apps::cmd_report,
     "write a workflow's HTML report: timeline per node and GPU, utilisation, failures"},
    {"cancel", torcrun::apps::cmd_cancel,
     "cancel a workflow: no more claims, its running jobs stopped, its allocations scancel'ed"},
    {"rerun", torcrun::apps::cmd_rerun,
     "run a workflow's jobs again as a new run (--failed, --job NAME); earlier logs stay"},
    // -- worker shell
    {"worker", torcrun::apps::cmd_worker, "run a workflow's jobs on this allocation's resources"},
    // -- run command
    {"run", torcrun::apps::cmd_run,
     "run a workflow spec here: embedded server, worker, progress and summary"},
};

void print_usage(std::ostream& out)
{
    out << "usage: torcrun <command> [options]\n\ncommands:\n";
    for (auto const& c : subcommands) out << "  " << c.name << "\t" << c.summary << "\n";
    out << "\n'torcrun <command> --help' describes each command's options.\n";
}

int dispatch(int argc, char** argv)
{
    if (argc < 2) {
        print_usage(std::cerr);
        return 2;
    }
    std::string_view const name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        print_usage(std::cout);
        return 0;
    }
    if (name == "--version") return torcrun::apps::cmd_version({});
    for (auto const& c : subcommands) {
        if (c.name == name) return c.run(arguments(argv + 2, argv + argc));
    }
    std::vector<std::string_view> names;
    for (auto const& c : subcommands) names.push_back(c.name);
    std::cerr << "torcrun: unknown command '" << name << "'";
    if (auto const near = torcrun::core::closest_command(name, names))
        std::cerr << " (did you mean '" << *near << "'?)";
    std::cerr << "\n";
    print_usage(std::cerr);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    try {
        return dispatch(argc, argv);
    } catch (std::exception const& e) {
        std::cerr << "torcrun: " << e.what() << "\n";
        return 1;
    }
}
