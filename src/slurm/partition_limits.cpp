// See partition_limits.hpp. The listing is split by hand: it is sinfo's own fixed format of seven
// '|'-separated fields, and nothing in Debian parses it.
#include "torcrun/slurm/partition_limits.hpp"

#include "torcrun/slurm/sbatch_script.hpp"
#include "torcrun/slurm/slurm_gpus.hpp"

#include <algorithm>
#include <charconv>

namespace torcrun::core {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep)
{
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        auto const end = s.find(sep, start);
        out.push_back(s.substr(start, end == std::string_view::npos ? s.npos : end - start));
        if (end == std::string_view::npos) return out;
        start = end + 1;
    }
}

std::optional<std::uint64_t> number(std::string_view s)
{
    std::uint64_t v = 0;
    auto const [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

bool is_infinite(std::string_view s)
{
    return s == "infinite" || s == "UNLIMITED" || s == "unlimited" || s == "INFINITE";
}

}  // namespace

result<std::uint32_t> gres_gpu_count(std::string_view gres)
{
    std::uint32_t total = 0;
    if (gres.empty() || gres == "(null)") return total;
    for (auto item : split(gres, ',')) {
        if (auto const paren = item.find('('); paren != item.npos) item = item.substr(0, paren);
        if (!item.starts_with("gpu:") && item != "gpu") continue;
        auto n = parse_gpu_count(item, "gres");
        if (!n) return n.error();
        total += *n;
    }
    return total;
}

result<std::vector<partition_limits>> parse_partition_listing(std::string_view sinfo_lines)
{
    std::vector<partition_limits> out;
    std::size_t line_no = 0;
    for (auto line : split(sinfo_lines, '\n')) {
        ++line_no;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
        if (line.empty()) continue;
        auto const where = "sinfo line " + std::to_string(line_no) + ": ";
        auto const f = split(line, '|');
        if (f.size() != 7) {
            return error{where + "expected 7 '|'-separated fields, found " +
                         std::to_string(f.size()) + " in \"" + std::string(line) + "\""};
        }
        auto name = f[0];
        bool const is_default = name.ends_with('*');
        if (is_default) name.remove_suffix(1);
        if (name.empty()) return error{where + "no partition name"};
        auto const cpus = number(f[2]);
        if (!cpus || *cpus > UINT32_MAX)
            return error{where + "CPUs \"" + std::string(f[2]) + "\" is not a count"};
        auto const mem = number(f[3]);
        if (!mem) return error{where + "memory \"" + std::string(f[3]) + "\" is not megabytes"};
        auto gpus = gres_gpu_count(f[4]);
        if (!gpus) return error{where + gpus.error().message};
        std::optional<std::int64_t> time;
        if (!is_infinite(f[5])) {
            time = parse_slurm_time(f[5]);
            if (!time) return error{where + "time limit \"" + std::string(f[5]) +
                                    "\" is not a Slurm time"};
        }
        std::optional<std::uint32_t> max_nodes;
        auto const size = split(f[6], '-');
        auto const upper = size.back();
        if (!is_infinite(upper)) {
            auto const n = number(upper);
            if (!n || *n > UINT32_MAX)
                return error{where + "job size \"" + std::string(f[6]) + "\" is not N-M nodes"};
            max_nodes = static_cast<std::uint32_t>(*n);
        }
        auto p = std::find_if(out.begin(), out.end(), [&](auto const& x) { return x.name == name; });
        std::uint64_t const bytes = *mem * 1024 * 1024;
        if (p == out.end()) {
            out.push_back({std::string(name), is_default, 1, max_nodes,
                           static_cast<std::uint32_t>(*cpus), bytes, *gpus, time});
            continue;
        }
        p->nodes += 1;
        p->cpus_per_node = std::min(p->cpus_per_node, static_cast<std::uint32_t>(*cpus));
        p->memory_per_node = std::min(p->memory_per_node, bytes);
        p->gpus_per_node = std::min(p->gpus_per_node, *gpus);
    }
    std::stable_partition(out.begin(), out.end(), [](auto const& p) { return p.is_default; });
    return out;
}

}  // namespace torcrun::core
