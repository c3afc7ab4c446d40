// The sbatch script: option checks (each message names the option and quotes its text), then
// the text. Why the per-node launch has each srun flag (docs/TORC-COMPATIBILITY.md §2.6, §7):
//   --ntasks-per-node=1  one worker per node, each a 1-node pool of its own node;
//   --overlap            the worker step holds nothing, so the jobs' own steps never wait on it;
//   --mpi=none           the worker step gets no PMI/PMIx namespace its jobs could join
//                        (execution_config.srun_mpi replaces `none`);
//   --kill-on-bad-exit=0 one worker failing does not kill the others;
//   --wait=0             a worker leaving through the idle path does not end the rest after
//                        the site's WaitTime (Torc PR #318).
#include "torcrun/slurm/sbatch_script.hpp"

#include "torcrun/common/command_line.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

namespace torcrun::core {
namespace {

std::string quoted(std::string_view option, std::string_view text)
{
    return std::string(option) + ": \"" + std::string(text) + "\"";
}

result<std::int64_t> whole_number(std::string_view option, std::string_view text,
                                  std::int64_t minimum, std::int64_t maximum)
{
    std::int64_t value = 0;
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
        return error{quoted(option, text) + " is not a whole number"};
    }
    if (value < minimum) {
        return error{quoted(option, text) + " must be at least " + std::to_string(minimum)};
    }
    if (value > maximum) {
        return error{quoted(option, text) + " must be at most " + std::to_string(maximum)};
    }
    return value;
}

// sbatch reads #SBATCH lines itself, without a shell: a value must be one plain word.
result<void> sbatch_word(std::string_view option, std::string_view text)
{
    if (text.empty()) return error{quoted(option, text) + " is empty"};
    for (unsigned char const c : text) {
        if (c <= ' ' || c == '"' || c == '\'' || c == '\\' || c == 0x7f) {
            return error{quoted(option, text) +
                         " cannot go on an #SBATCH line (whitespace, quotes or backslashes)"};
        }
    }
    return {};
}

bool is_slurm_memory(std::string_view text)
{
    auto const digits = text.find_first_not_of("0123456789");
    if (digits == 0) return false;
    if (digits == std::string_view::npos) return true;
    return digits + 1 == text.size() && std::string_view("KMGTkmgt").find(text[digits]) !=
                                            std::string_view::npos;
}

std::vector<std::string> worker_argv(sbatch_request const& r, std::string_view mode)
{
    std::vector<std::string> argv{r.torcrun_path,        "worker", std::to_string(r.workflow_id),
                                  "--mode",              std::string(mode)};
    if (r.config_path) argv.insert(argv.end(), {"--config", *r.config_path});
    if (r.url) argv.insert(argv.end(), {"--url", *r.url});
    if (r.tls_ca_cert) argv.insert(argv.end(), {"--tls-ca-cert", *r.tls_ca_cert});
    argv.insert(argv.end(), {"--output-dir", r.output_dir});
    if (r.max_parallel_jobs)
        argv.insert(argv.end(), {"--max-parallel-jobs", std::to_string(*r.max_parallel_jobs)});
    if (r.startup_delay_seconds > 0) {
        argv.insert(argv.end(),
                    {"--startup-delay-seconds", std::to_string(r.startup_delay_seconds)});
    }
    return argv;
}


// srun's --mpi value: Torc's `^[A-Za-z0-9+_.-]+$`, checked again here as Torc does.
bool is_mpi_token(std::string_view text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '+' || c == '_' || c == '.' || c == '-';
    });
}

// A dependency the scheduler's extra line or the defaults set wins over the chain's singleton.
bool sets_dependency(sbatch_request const& r)
{
    if (r.extra && (r.extra->find("--dependency") != std::string::npos ||
                    r.extra->find("-d ") == 0 || r.extra->find(" -d ") != std::string::npos))
        return true;
    return std::any_of(r.more_options.begin(), r.more_options.end(),
                       [](auto const& o) { return o.first == "dependency"; });
}

struct checked {
    std::int64_t nodes = 1;
    std::int64_t lead = 0;
};

result<void> check_words(sbatch_request const& r)
{
    std::pair<char const*, std::optional<std::string> const*> const words[] = {
        {"--job-name", &r.job_name}, {"--job-name", &r.singleton_chain},
        {"--account", &r.account},   {"--partition", &r.partition},
        {"--qos", &r.qos},           {"--mem", &r.mem},             {"--gres", &r.gres},
        {"--tmp", &r.tmp}};
    for (auto const& [option, value] : words) {
        if (!*value) continue;
        if (auto ok = sbatch_word(option, **value); !ok) return ok;
    }
    if (r.mem && !is_slurm_memory(*r.mem)) {
        return error{quoted("--mem", *r.mem) + " is not a Slurm memory size (MB, or a number "
                                                "with K, M, G or T)"};
    }
    if (auto ok = sbatch_word("--output-dir", r.output_dir); !ok) return ok;
    for (auto const& [name, value] : r.more_options) {
        auto const option = "--" + name;
        if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
                                std::string::npos) {
            return error{quoted(option, value) + ": \"" + name +
                         "\" is not an sbatch option name (lower-case letters, digits, -)"};
        }
        if (auto ok = sbatch_word(option, value); !ok) return ok;
    }
    if (r.extra && (r.extra->empty() || r.extra->find_first_of("\n\r") != std::string::npos)) {
        return error{quoted("extra", *r.extra) + " must be one non-empty line"};
    }
    if (r.srun_mpi && !is_mpi_token(*r.srun_mpi)) {
        return error{quoted("srun_mpi", *r.srun_mpi) +
                     " must be one word of letters, digits and + _ . -"};
    }
    if (!r.torcrun_path.starts_with('/')) {
        return error{quoted("--torcrun", r.torcrun_path) + " is not an absolute path"};
    }
    return {};
}

result<checked> check(sbatch_request const& r, worker_config const& config)
{
    if (auto ok = check_words(r); !ok) return ok.error();
    checked out;
    if (r.max_parallel_jobs && *r.max_parallel_jobs < 1) {
        return error{"--max-parallel-jobs: " + std::to_string(*r.max_parallel_jobs) +
                     " must be at least 1"};
    }
    auto nodes = whole_number("--nodes", r.nodes, 1, 1'000'000);
    if (!nodes) return nodes.error();
    out.nodes = *nodes;
    for (auto const* count : {&r.gpus_per_node, &r.cpus_per_task}) {
        if (!*count) continue;
        auto const option = count == &r.gpus_per_node ? "--gpus-per-node" : "--cpus-per-task";
        if (auto n = whole_number(option, **count, count == &r.gpus_per_node ? 0 : 1, 1 << 20); !n)
            return n.error();
    }
    if (r.exclusive && r.cpus_per_task) {
        return error{"--exclusive: cannot be combined with " +
                     quoted("--cpus-per-task", *r.cpus_per_task)};
    }
    auto const limit = parse_slurm_time(r.time);
    if (!limit || *limit <= 0) {
        return error{quoted("--time", r.time) + " is not a Slurm time (MM, MM:SS, HH:MM:SS, "
                                                "D-HH, D-HH:MM or D-HH:MM:SS, above 0)"};
    }
    out.lead = default_signal_lead(config);
    if (r.signal_lead) {
        auto lead = whole_number("--signal-lead", *r.signal_lead, 1, 65535);  // Slurm's maximum
        if (!lead) return lead.error();
        out.lead = *lead;
    }
    if (out.lead >= *limit) {
        return error{quoted("--time", r.time) + " (" + std::to_string(*limit) +
                     " s) leaves no time before the USR1 warning, which comes " +
                     std::to_string(out.lead) + " s before the end (--signal-lead)"};
    }
    return out;
}

std::string sbatch_lines(sbatch_request const& r, checked const& c)
{
    std::string out = "#!/bin/bash\n";
    auto line = [&out](std::string_view option, std::string_view value) {
        out += "#SBATCH --";
        out += option;
        if (!value.empty()) {
            out += '=';
            out += value;
        }
        out += '\n';
    };
    line("job-name", r.singleton_chain.value_or(
                         r.job_name.value_or("torcrun_wf" + std::to_string(r.workflow_id))));
    if (r.singleton_chain && !sets_dependency(r)) line("dependency", "singleton");
    if (r.account) line("account", *r.account);
    if (r.partition) line("partition", *r.partition);
    if (r.qos) line("qos", *r.qos);
    line("nodes", std::to_string(c.nodes));
    line("ntasks-per-node", "1");
    line("time", r.time);
    if (r.gpus_per_node) line("gpus-per-node", *r.gpus_per_node);
    if (r.cpus_per_task) line("cpus-per-task", *r.cpus_per_task);
    // Neither given: whole nodes. --ntasks-per-node=1 alone holds one CPU per node, and every
    // job step of the worker would queue behind it (docs/TORC-COMPATIBILITY.md §7).
    if (r.exclusive || !r.cpus_per_task) line("exclusive", "");
    if (r.mem) line("mem", *r.mem);
    if (r.gres) line("gres", *r.gres);
    if (r.tmp) line("tmp", *r.tmp);
    for (auto const& [name, value] : r.more_options) line(name, value);
    if (r.extra) out += "#SBATCH " + *r.extra + "\n";
    auto const stem = r.output_dir + "/slurm_output_wf" + std::to_string(r.workflow_id) + "_sl%j";
    line("output", stem + ".o");
    line("error", stem + ".e");
    line("signal", "B:USR1@" + std::to_string(c.lead));
    return out;
}

// USR1 must reach the workers alone: srun forwards a signal to every process of its step, and
// the jobs would die of it (rc 138, failed) before their worker drains. So each worker's pid
// goes to <output-dir>/workers/sl<job id>.<node>.pid (exec keeps the pid of the `bash -c` that
// writes it), and the trap signals those pids from a short step on each node; its
// --kill-on-bad-exit=0 lets the other nodes' kills run when one node's worker has left already.
std::string per_node_launch(sbatch_request const& r)
{
    auto const dir = shell_quote(r.output_dir + "/workers");
    return "\n# One direct-mode worker per node. USR1 from --signal=B: reaches only this shell,\n"
           "# and it must reach the workers alone: srun would forward it to every process of\n"
           "# the worker step, the jobs too, which would die of it before their worker drains.\n"
           "# So each worker writes its pid (exec keeps it) to a file named after its node, and\n"
           "# the trap signals that pid from a short step on each node.\n"
           "mkdir -p " + dir + "\n"
           "pids=" + dir + "/sl$SLURM_JOB_ID\n"
           "srun --ntasks-per-node=1 --overlap --mpi=" + r.srun_mpi.value_or("none") +
           " --kill-on-bad-exit=0 --wait=0 \\\n"
           "    bash -c 'echo $$ >\"$0.$SLURMD_NODENAME.pid\"; exec \"$@\"' \"$pids\" \\\n"
           "    " + render_command_line(worker_argv(r, "direct")) + " &\n"
           "workers=$!\n"
           "signal_workers() {\n"
           "    srun --ntasks-per-node=1 --overlap --mpi=none --kill-on-bad-exit=0 \\\n"
           "        bash -c 'kill -USR1 \"$(cat \"$0.$SLURMD_NODENAME.pid\")\"' \"$pids\"\n"
           "}\n"
           "trap signal_workers USR1\n"
           "# wait returns early whenever a trapped signal arrives: wait again until srun has\n"
           "# ended, then once more for its exit status, which bash keeps (srun may have been\n"
           "# reaped while the trap ran, and wait's own status was then the signal's).\n"
           "while kill -0 \"$workers\" 2>/dev/null; do\n"
           "    wait \"$workers\"\n"
           "done\n"
           "wait \"$workers\"\n"
           "status=$?\n"
           "rm -f \"$pids\".*.pid\n"
           "exit \"$status\"\n";
}

}  // namespace

std::int64_t default_signal_lead(worker_config const& config)
{
    auto const t = config.termination;
    return static_cast<std::int64_t>(std::ceil(t.grace_seconds + t.drain_buffer_seconds));
}

result<std::string> render_sbatch_script(sbatch_request const& request,
                                         worker_config const& config)
{
    auto const c = check(request, config);
    if (!c) return c.error();
    auto out = sbatch_lines(request, *c);
    if (request.per_node_workers) {
        return result<std::string>(boost::system::in_place_value, out + per_node_launch(request));
    }
    auto const mode = request.direct_single_worker ? "direct" : "slurm";
    return result<std::string>(boost::system::in_place_value,
        out + "\n# One " + mode +
           "-mode worker for the whole allocation; exec makes it the batch shell,\n"
           "# so the USR1 warning of --signal=B: reaches it directly.\n"
           "exec " +
           render_command_line(worker_argv(request, mode)) + "\n");
}

std::optional<std::int64_t> parse_slurm_time(std::string_view text)
{
    std::int64_t days = 0;
    bool has_days = false;
    if (auto const dash = text.find('-'); dash != std::string_view::npos) {
        auto const [end, ec] = std::from_chars(text.data(), text.data() + dash, days);
        if (dash == 0 || ec != std::errc{} || end != text.data() + dash) return std::nullopt;
        has_days = true;
        text.remove_prefix(dash + 1);
    }
    std::vector<std::int64_t> parts;
    while (true) {
        auto const colon = text.find(':');
        auto const part = text.substr(0, colon);
        std::int64_t value = 0;
        auto const [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (part.empty() || ec != std::errc{} || end != part.data() + part.size() || value < 0)
            return std::nullopt;
        parts.push_back(value);
        if (colon == std::string_view::npos) break;
        text.remove_prefix(colon + 1);
    }
    if (parts.size() > 3 || days > 365 * 100) return std::nullopt;
    if (has_days) {  // D-HH, D-HH:MM, D-HH:MM:SS
        parts.resize(3, 0);
        return ((days * 24 + parts[0]) * 60 + parts[1]) * 60 + parts[2];
    }
    if (parts.size() == 1) return parts[0] * 60;              // MM
    if (parts.size() == 2) return parts[0] * 60 + parts[1];  // MM:SS
    return (parts[0] * 60 + parts[1]) * 60 + parts[2];       // HH:MM:SS
}

result<std::int64_t> parse_sbatch_job_id(std::string_view output)
{
    constexpr std::string_view lead = "Submitted batch job ";
    if (auto const at = output.find(lead); at != std::string_view::npos) {
        auto const digits = output.substr(at + lead.size());
        std::int64_t id = 0;
        auto const [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
        if (ec == std::errc{} && end != digits.data() && id > 0) return id;
    }
    auto text = std::string(output);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return error{"sbatch: no job id in \"" + text + "\""};
}
}  // namespace torcrun::core
