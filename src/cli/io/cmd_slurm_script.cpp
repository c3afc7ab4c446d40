// `torcrun slurm-script WF --time T [options] [--submit]`: writes the sbatch script of an
// allocation whose workers serve workflow WF (core::render_sbatch_script), by default to
// <output-dir>/<job-name>.sh, and prints its path; with --submit it runs sbatch on it and prints
// the Slurm job id instead. Paths in the script are absolute, as the batch job may start
// elsewhere. Exit 0, 1 when writing or sbatch fails, 2 for a usage or configuration error.
#include "torcrun/cli/commands.hpp"

#include "config_options.hpp"
#include "machine_facts.hpp"
#include "cli/positional_command.hpp"
#include "sbatch_files.hpp"
#include "torc_client.hpp"
#include "torcrun/slurm/sbatch_script.hpp"

#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun slurm-script: " << message << "\n";
    return status;
}

po::options_description script_options()
{
    po::options_description o(
        "usage: torcrun slurm-script WF --time T [options] [--submit]\n\n"
        "Writes the sbatch script of an allocation whose workers serve workflow WF and prints\n"
        "its path; --submit runs sbatch on it and prints the Slurm job id.\n\noptions");
    auto text = [] { return po::value<std::string>()->value_name("VALUE"); };
    o.add_options()("help,h", "print this help")("job-name", text(), "default torcrun_wf<WF>")(
        "account", text(), "#SBATCH --account")("partition", text(), "#SBATCH --partition")(
        "qos", text(), "#SBATCH --qos")("nodes", text(), "#SBATCH --nodes (default 1)")(
        "time", text(), "#SBATCH --time (required), e.g. 04:00:00 or 1-00")(
        "gpus-per-node", text(), "#SBATCH --gpus-per-node")(
        "cpus-per-task", text(), "#SBATCH --cpus-per-task: CPUs per node (one task per node)")(
        "exclusive", "#SBATCH --exclusive (instead of --cpus-per-task)")(
        "mem", text(), "#SBATCH --mem, per node (e.g. 64G)")(
        "output-dir", text(), "Slurm and worker output (default: the config's output_dir)")(
        "signal-lead", text(), "seconds of the USR1 warning before the end "
                               "(default: termination grace + drain buffer)")(
        "per-node-workers", "one direct-mode worker per node instead of one slurm-mode worker")(
        "torcrun", text(), "absolute path of torcrun on the nodes (default: this binary)")(
        "config", text(), "worker configuration file, passed on to the workers")(
        "url", text(), "server API URL, passed on to the workers")(
        "tls-ca-cert", text(), "PEM file of the CAs the workers trust for an https URL, passed "
                               "on to them (default: $TORC_TLS_CA_CERT)")(
        "script", text(), "where to write the script; - for stdout")(
        "submit", "run sbatch on the script and print the job id");
    return o;
}

std::optional<std::string> flag(po::variables_map const& vm, char const* name)
{
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<std::string>();
}

std::string absolute(std::string const& path) { return absolute_path(path); }

core::result<core::worker_config> load_config(po::variables_map const& vm)
{
    if (auto url = flag(vm, "url")) return load_worker_config(flag(vm, "config"), url, "--url");
    return load_worker_config(flag(vm, "config"), api_url_from_environment(), "TORC_API_URL");
}

core::result<core::sbatch_request> make_request(po::variables_map const& vm, std::int64_t wf,
                                                core::worker_config const& config)
{
    core::sbatch_request r;
    r.workflow_id = wf;
    r.job_name = flag(vm, "job-name");
    r.account = flag(vm, "account");
    r.partition = flag(vm, "partition");
    r.qos = flag(vm, "qos");
    r.nodes = flag(vm, "nodes").value_or("1");
    r.time = flag(vm, "time").value_or("");
    if (!vm.count("time")) return core::error{"--time: is required"};
    r.gpus_per_node = flag(vm, "gpus-per-node");
    r.cpus_per_task = flag(vm, "cpus-per-task");
    r.exclusive = vm.count("exclusive") > 0;
    r.mem = flag(vm, "mem");
    r.output_dir = absolute(flag(vm, "output-dir").value_or(config.output_dir));
    r.signal_lead = flag(vm, "signal-lead");
    r.per_node_workers = vm.count("per-node-workers") > 0;
    if (auto given = flag(vm, "torcrun")) {
        r.torcrun_path = *given;
    } else {
        auto self = this_torcrun_path("--torcrun");
        if (!self) return self.error();
        r.torcrun_path = *self;
    }
    if (auto path = flag(vm, "config")) r.config_path = absolute(*path);
    r.url = flag(vm, "url");
    if (!r.url) r.url = api_url_from_environment();  // the script names the server it was made for
    auto ca = flag(vm, "tls-ca-cert");
    if (!ca) ca = tls_ca_cert_from_environment();
    if (ca) r.tls_ca_cert = absolute(*ca);
    return r;
}

}  // namespace

int cmd_slurm_script(arguments const& args)
{
    auto options = script_options();
    auto parsed = parse_positional_command(
        args, options,
        {"slurm-script", "workflow", "WF", "",
         "missing the workflow id (torcrun slurm-script WF)"});
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    auto const& vm = std::get<po::variables_map>(parsed);
    auto const wf = parse_workflow_id(vm["workflow"].as<std::string>());
    if (!wf) return fail(wf.error().message, 2);
    auto const config = load_config(vm);
    if (!config) return fail(config.error().message, 2);
    auto const request = make_request(vm, *wf, *config);
    if (!request) return fail(request.error().message, 2);
    auto const text = core::render_sbatch_script(*request, *config);
    if (!text) return fail(text.error().message, 2);
    auto const name = request->job_name.value_or("torcrun_wf" + std::to_string(*wf));
    auto const path = flag(vm, "script").value_or(request->output_dir + "/" + name + ".sh");
    bool const submitting = vm.count("submit") > 0;
    if (path == "-") {
        if (submitting) return fail("--submit: needs a script file, not --script -", 2);
        std::cout << *text;
        return 0;
    }
    // Slurm does not create the folder of --output/--error; without it the job's output is lost.
    std::error_code ec;
    fs::create_directories(request->output_dir, ec);
    if (ec) return fail("--output-dir: \"" + request->output_dir + "\": " + ec.message(), 1);
    if (auto written = write_script(path, *text, "--script"); !written) return fail(written.error().message, 1);
    if (!submitting) {
        std::cout << path << "\n";
        return 0;
    }
    auto const job = run_sbatch(absolute(path));
    if (!job) return fail(job.error().message, 1);
    std::cout << *job << "\n";
    return 0;
}

}  // namespace torcrun::apps
