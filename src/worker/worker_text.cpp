// The wording shared by worker_fsm's log lines and describe().
#include "worker_text.hpp"

#include "torcrun/common/units.hpp"

#include <cmath>
#include <cstdint>

namespace torcrun::core {

std::string number(request_id id) { return std::to_string(static_cast<std::uint64_t>(id)); }

std::string format_seconds(double seconds)
{
    auto const thousandths = static_cast<std::int64_t>(std::llround(seconds * 1000));
    auto const whole = thousandths / 1000;
    auto fraction = std::llabs(thousandths % 1000);
    std::string text;
    if (thousandths < 0 && whole == 0) text.push_back('-');
    text.append(std::to_string(whole));
    if (fraction == 0) return text;
    auto digits = std::to_string(fraction + 1000).substr(1);  // three digits, leading zeros
    while (digits.back() == '0') digits.pop_back();
    text.push_back('.');
    text.append(digits);
    return text;
}

std::string describe_placement(reservation const& placement)
{
    std::vector<std::string> nodes;
    for (auto const& share : placement.nodes)
        nodes.push_back(share.node_name +
                        (share.gpu_ids.empty() ? "" : '[' + join(share.gpu_ids, ",") + ']'));
    std::string text = join(nodes, ",");
    if (!placement.nodes.empty()) {
        auto const& first = placement.nodes.front();
        text +=
            " cpus=" + std::to_string(first.cpus) + " memory=" + format_memory(first.memory_bytes);
    }
    return placement.whole_nodes ? text + " whole" : text;
}

std::string describe_report(job_report const& report)
{
    auto const& r = report.result;
    return (report.kind == report_kind::record ? "record " : "") + std::to_string(r.job_id) + '#' +
           std::to_string(r.attempt_id) + ' ' + std::string(to_string(r.status)) +
           " rc=" + std::to_string(r.return_code);
}

}  // namespace torcrun::core
