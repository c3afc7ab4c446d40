// `torcrun allocation [--json] [--mode auto|direct|slurm]`: the allocation as a worker started
// here would see it. Exit 0, or 2 when the environment or the options cannot be interpreted.
#include "machine_facts.hpp"
#include "torcrun/cli/commands.hpp"

#include "cli/command_line_parse.hpp"
#include "cli/positional_command.hpp"
#include "torcrun/slurm/allocation_report.hpp"
#include "torcrun/slurm/gpu_devices.hpp"
#include "torcrun/worker/io/gpu_topology.hpp"
#include "torcrun/worker/io/nvml_library.hpp"

#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace {

namespace po = boost::program_options;

int usage_error(std::string_view message)
{
    std::cerr << "torcrun allocation: " << message << "\n";
    return 2;
}

}  // namespace

int cmd_allocation(arguments const& args)
{
    po::options_description options(
        "usage: torcrun allocation [--json] [--mode auto|direct|slurm]\n\n"
        "Prints the nodes this process may use, their CPUs, memory and GPU ids, where each value\n"
        "came from, the scope, the execution mode and why, and any inconsistencies found in the\n"
        "Slurm environment; then this machine's GPUs as the NVIDIA driver (NVML) lists them:\n"
        "index, UUID, name, memory, MIG devices, the NUMA node and CPUs near each, and the pool\n"
        "ids naming it.\n\noptions");
    options.add_options()("help,h", "print this help")("json", "print JSON instead of text")(
        "mode", po::value<std::string>()->default_value("auto"),
        "the mode to evaluate: auto, direct or slurm");
    po::variables_map vm;
    try {
        po::store(parse_command_line(args, options), vm);
        po::notify(vm);
    } catch (po::error const& e) {
        return usage_error(command_line_error(e, options));
    }
    if (vm.count("help")) {
        std::cout << options << "\n";
        return 0;
    }
    auto const requested = core::parse_requested_mode(vm["mode"].as<std::string>());
    if (!requested) return usage_error(requested.error().message);
    auto const allocation = core::read_allocation(read_process_environment(), measure_machine());
    if (!allocation) return usage_error(allocation.error().message);
    auto const decision = core::choose_mode(*allocation, *requested);
    if (!decision) return usage_error(decision.error().message);
    auto const gpus = io::read_gpu_inventory(io::nvml_library_path(), io::sysfs_root());
    std::vector<std::string> pool_ids;
    if (allocation->local_node)
        pool_ids = allocation->nodes[*allocation->local_node].capacity.gpu_ids;
    if (vm.count("json")) {
        auto out = core::allocation_to_json(*allocation, *requested, *decision);
        out.as_object()["gpu_devices"] = core::gpu_inventory_json(gpus, pool_ids);
        std::cout << boost::json::serialize(out) << "\n";
    } else {
        std::cout << core::format_allocation_text(*allocation, *requested, *decision)
                  << core::format_gpu_inventory(gpus, pool_ids);
    }
    return 0;
}

}  // namespace torcrun::apps
