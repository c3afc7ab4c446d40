// See run_report.hpp.
#include "torcrun/cli/run_report.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace torcrun::core {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    std::int64_t const era = (y >= 0 ? y : y - 399) / 400;
    auto const yoe = static_cast<unsigned>(y - era * 400);
    unsigned const doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct civil {
    std::int64_t y;
    unsigned m, d;
};

civil civil_from_days(std::int64_t z)
{
    z += 719468;
    std::int64_t const era = (z >= 0 ? z : z - 146096) / 146097;
    auto const doe = static_cast<unsigned>(z - era * 146097);
    unsigned const yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned const doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned const mp = (5 * doy + 2) / 153;
    unsigned const d = doy - (153 * mp + 2) / 5 + 1;
    unsigned const m = mp < 10 ? mp + 3 : mp - 9;
    return {static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

std::optional<unsigned> digits(std::string_view text, std::size_t at, std::size_t n)
{
    if (at + n > text.size()) return std::nullopt;
    unsigned v = 0;
    auto const [end, ec] = std::from_chars(text.data() + at, text.data() + at + n, v);
    if (ec != std::errc{} || end != text.data() + at + n) return std::nullopt;
    return v;
}

std::string padded(std::int64_t v, std::size_t width)
{
    auto text = std::to_string(v);
    return std::string(text.size() < width ? width - text.size() : 0, '0') + text;
}

std::string format_utc(double seconds)
{
    auto const total_ms = static_cast<std::int64_t>(std::llround(seconds * 1000));
    auto const whole = total_ms >= 0 ? total_ms / 1000 : (total_ms - 999) / 1000;
    auto const ms = total_ms - whole * 1000;
    auto const day = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400;
    auto const in_day = whole - day * 86400;
    auto const c = civil_from_days(day);
    return padded(c.y, 4) + "-" + padded(c.m, 2) + "-" + padded(c.d, 2) + "T" +
           padded(in_day / 3600, 2) + ":" + padded(in_day / 60 % 60, 2) + ":" +
           padded(in_day % 60, 2) + "." + padded(ms, 3) + "Z";
}

std::string fixed(double v, int decimals)
{
    char text[64];
    auto const [end, ec] =
        std::to_chars(text, text + sizeof text, v, std::chars_format::fixed, decimals);
    return ec == std::errc{} ? std::string(text, end) : std::string("?");
}

std::string memory_text(std::uint64_t bytes)
{
    static constexpr char const* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    std::size_t u = 0;
    while (v >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
    return fixed(v, u == 0 ? 0 : 1) + " " + units[u];
}

std::string_view outcome_colour(std::string_view status)
{
    if (status == "completed") return "#2e7d32";
    if (status == "failed") return "#c62828";
    if (status == "canceled") return "#757575";
    if (status == "terminated") return "#ef6c00";
    return "#1565c0";
}

std::string attempt_key(report_attempt const& a)
{
    return std::to_string(a.job_id) + "." + std::to_string(a.run_id) + "." +
           std::to_string(a.attempt_id);
}

// Where the attempt ran: its step's node(s) in slurm mode, with the worker that started it.
std::string where_ran(report_attempt const& a, std::string_view worker)
{
    return a.step_nodes.empty() ? std::string(worker)
                                : a.step_nodes + " (a step of " + std::string(worker) + ")";
}

std::string attempt_title(report_attempt const& a, std::string_view node)
{
    return html_escape(a.job_name + " (job " + std::to_string(a.job_id) +
                       (a.origin.empty() ? std::string() : ", " + a.origin) + ") attempt " +
                       std::to_string(a.attempt_id) + " run " + std::to_string(a.run_id) +
                       ": " + a.status + ", rc " + std::to_string(a.return_code) + "\n" +
                       format_utc(a.start_seconds) + " .. " + format_utc(a.end_seconds) + " (" +
                       fixed(a.end_seconds - a.start_seconds, 3) + " s) on " + where_ran(a, node) +
                       ", " + std::to_string(a.num_cpus) + " CPUs, " + std::to_string(a.num_gpus) +
                       " GPUs");
}

// Lowest-first slot assignment on one key (a node): `width(a)` slots from the lowest run of free
// slots at each attempt's start, in start order.
template <class Width>
std::vector<std::int64_t> assign_slots(std::vector<report_attempt> const& attempts, Width width)
{
    std::vector<std::size_t> order(attempts.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::ranges::stable_sort(order, [&](std::size_t l, std::size_t r) {
        return attempts[l].start_seconds < attempts[r].start_seconds;
    });
    std::vector<std::int64_t> out(attempts.size(), -1);
    std::map<std::int64_t, std::vector<double>> busy_until;  // node -> slot -> end
    for (auto const i : order) {
        auto const& a = attempts[i];
        auto const n = width(a);
        if (n <= 0) continue;
        auto& slots = busy_until[a.compute_node_id];
        std::size_t first = 0;
        for (;; ++first) {
            bool free = true;
            for (std::size_t s = first; s < first + static_cast<std::size_t>(n); ++s)
                if (s < slots.size() && slots[s] > a.start_seconds) free = false;
            if (free) break;
        }
        if (slots.size() < first + static_cast<std::size_t>(n))
            slots.resize(first + static_cast<std::size_t>(n), -1e300);
        for (std::size_t s = first; s < first + static_cast<std::size_t>(n); ++s)
            slots[s] = a.end_seconds;
        out[i] = static_cast<std::int64_t>(first);
    }
    return out;
}

constexpr double chart_left = 190;
constexpr double chart_width = 760;
constexpr double row_height = 18;

struct time_span {
    double begin = 0;
    double end = 1;
};

time_span span_of(std::vector<report_attempt> const& attempts)
{
    if (attempts.empty()) return {};
    time_span s{attempts.front().start_seconds, attempts.front().end_seconds};
    for (auto const& a : attempts) {
        s.begin = std::min(s.begin, a.start_seconds);
        s.end = std::max(s.end, a.end_seconds);
    }
    if (s.end <= s.begin) s.end = s.begin + 1;
    return s;
}

std::string axis(time_span span, double y)
{
    std::string out = "<g class=\"axis\">";
    for (int i = 0; i <= 5; ++i) {
        double const t = span.begin + (span.end - span.begin) * i / 5;
        auto const x = fixed(time_to_x(t, span.begin, span.end, chart_left, chart_width), 1);
        out += "<line x1=\"" + x + "\" y1=\"0\" x2=\"" + x + "\" y2=\"" + fixed(y, 1) +
               "\"/><text x=\"" + x + "\" y=\"" + fixed(y + 14, 1) +
               "\" text-anchor=\"" + (i == 5 ? "end" : i == 0 ? "start" : "middle") + "\">" +
               fixed(t - span.begin, 1) + " s</text>";
    }
    return out + "</g>";
}

std::string bar(double x0, double x1, double y, std::string_view cls, report_attempt const& a,
                std::string const& title)
{
    return "<rect class=\"" + std::string(cls) + "\" data-attempt=\"" + attempt_key(a) +
           "\" data-status=\"" + html_escape(a.status) + "\" x=\"" + fixed(x0, 2) + "\" y=\"" +
           fixed(y + 2, 1) + "\" width=\"" + fixed(std::max(x1 - x0, 1.5), 2) + "\" height=\"" +
           fixed(row_height - 4, 1) + "\" fill=\"" + std::string(outcome_colour(a.status)) +
           "\"><title>" + title + "</title></rect>";
}

std::string node_label(std::map<std::int64_t, report_node> const& nodes, std::int64_t id)
{
    auto const it = nodes.find(id);
    return (it == nodes.end() ? std::string("node") : it->second.hostname) + " #" +
           std::to_string(id);
}

std::string timeline_svg(report_input const& in, std::map<std::int64_t, report_node> const& nodes,
                         gpu_lane_plan const& plan)
{
    auto const& attempts = in.attempts;
    auto const span = span_of(attempts);
    auto const rows = assign_node_rows(attempts);
    std::set<std::int64_t> node_ids;
    for (auto const& a : attempts) node_ids.insert(a.compute_node_id);
    std::string body;
    double y = 4;
    auto const x_of = [&](double t) {
        return time_to_x(t, span.begin, span.end, chart_left, chart_width);
    };
    for (auto const node : node_ids) {
        std::int64_t row_count = 1;
        for (std::size_t i = 0; i < attempts.size(); ++i)
            if (attempts[i].compute_node_id == node) row_count = std::max(row_count, rows[i] + 1);
        auto const label = node_label(nodes, node);
        body += "<text class=\"lane\" x=\"4\" y=\"" + fixed(y + 13, 1) + "\">" +
                html_escape(label) + "</text>";
        for (std::size_t i = 0; i < attempts.size(); ++i) {
            auto const& a = attempts[i];
            if (a.compute_node_id != node) continue;
            body += bar(x_of(a.start_seconds), x_of(a.end_seconds),
                        y + static_cast<double>(rows[i]) * row_height, "attempt", a,
                        attempt_title(a, label));
        }
        y += static_cast<double>(row_count) * row_height + 4;
        auto const lanes = plan.lanes.find(node);
        auto const lane_count = lanes == plan.lanes.end() ? 0 : lanes->second.size();
        for (std::size_t g = 0; g < lane_count; ++g) {
            body += "<text class=\"lane\" x=\"14\" y=\"" + fixed(y + 13, 1) + "\">" +
                    html_escape(label + " GPU " + lanes->second[g]) + "</text>";
            for (std::size_t i = 0; i < attempts.size(); ++i) {
                auto const& a = attempts[i];
                auto const& held = plan.held[i];
                if (a.compute_node_id != node || std::ranges::find(held, g) == held.end())
                    continue;
                body += bar(x_of(a.start_seconds), x_of(a.end_seconds), y, "gpu-bar", a,
                            attempt_title(a, label));
            }
            y += row_height;
        }
        y += 8;
    }
    auto const height = y + 20;
    return "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"" +
           fixed(height, 0) + "\" viewBox=\"0 0 960 " + fixed(height, 0) + "\">" +
           axis(span, y) + body + "</svg>";
}

// One line of measured steps, e.g. `<path class="node-cpu" data-node="3" d="...">`, from the
// chart's left edge at zero; `attributes` follow the class.
template <class YOf>
std::string step_path(std::vector<measured_step> const& steps, time_span span, YOf const& y_of,
                      std::string const& cls_and_attributes, std::string const& title)
{
    std::string out = "<path class=\"" + cls_and_attributes + " d=\"M" + fixed(chart_left, 1) +
                      "," + fixed(y_of(0.0), 1);
    for (auto const& m : steps) {
        auto const x =
            fixed(time_to_x(m.seconds, span.begin, span.end, chart_left, chart_width), 2);
        out += " H" + x + " V" + fixed(y_of(m.cores), 2);
    }
    return out + " H" + fixed(chart_left + chart_width, 1) + "\"><title>" + html_escape(title) +
           "</title></path>";
}

// The nodes' lines carry their looks themselves: the page's style stays as it was for runs
// without node monitoring.
constexpr char const* node_stroke =
    " fill=\"none\" stroke=\"#2e7d32\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"";

// A node's line: its steps and the label of its title.
struct node_line {
    std::int64_t node = 0;
    std::string label;
    std::vector<measured_step> steps;
};

double most_of(std::vector<measured_step> const& steps)
{
    double most = 0;
    for (auto const& m : steps) most = std::max(most, m.cores);
    return most;
}

// The chart of held CPUs (or GPUs) against the total; for CPUs also the cores measured busy
// (`measured`, path class "measured"), when there are any, and each sampled node's busy cores
// (`nodes`, path class "node-cpu").
std::string usage_svg(std::vector<usage_step> const& steps, time_span span, std::int64_t total,
                      bool gpus, std::string_view cls,
                      std::vector<measured_step> const& measured = {},
                      std::vector<node_line> const& nodes = {})
{
    constexpr double height = 120;
    std::int64_t peak = total;
    for (auto const& s : steps) peak = std::max(peak, gpus ? s.gpus : s.cpus);
    for (auto const& m : measured)
        peak = std::max(peak, static_cast<std::int64_t>(std::ceil(m.cores)));
    for (auto const& n : nodes)
        peak = std::max(peak, static_cast<std::int64_t>(std::ceil(most_of(n.steps))));
    if (peak <= 0) peak = 1;
    auto const y_of = [&](auto v) {  // CPUs or GPUs (integers) and measured cores alike
        return 10 + height - height * static_cast<double>(v) / static_cast<double>(peak);
    };
    std::string path = "M" + fixed(chart_left, 1) + "," + fixed(y_of(0), 1);
    for (auto const& s : steps) {
        auto const x = fixed(time_to_x(s.seconds, span.begin, span.end, chart_left, chart_width), 2);
        path += " H" + x + " V" + fixed(y_of(gpus ? s.gpus : s.cpus), 2);
    }
    path += " H" + fixed(chart_left + chart_width, 1);
    std::string measured_path;
    if (!measured.empty()) {
        double most = 0;
        measured_path = "<path class=\"measured\" d=\"M" + fixed(chart_left, 1) + "," +
                        fixed(y_of(0), 1);
        for (auto const& m : measured) {
            auto const x =
                fixed(time_to_x(m.seconds, span.begin, span.end, chart_left, chart_width), 2);
            measured_path += " H" + x + " V" + fixed(y_of(m.cores), 2);
            most = std::max(most, m.cores);
        }
        measured_path += " H" + fixed(chart_left + chart_width, 1) + "\"><title>" +
                         (gpus ? "GPUs" : "CPU cores") + " measured busy, at most " +
                         fixed(most, 2) + "</title></path>";
    }
    std::string out = "<svg class=\"" + std::string(cls) +
                      "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"" +
                      fixed(height + 36, 0) + "\">" + axis(span, height + 10);
    out += "<text class=\"lane\" x=\"4\" y=\"" + fixed(y_of(peak) + 4, 1) + "\">" +
           std::to_string(peak) + (gpus ? " GPUs" : " CPUs") + "</text>";
    out += "<text class=\"lane\" x=\"4\" y=\"" + fixed(y_of(0), 1) + "\">0</text>";
    if (total > 0)
        out += "<line class=\"total\" x1=\"" + fixed(chart_left, 1) + "\" x2=\"" +
               fixed(chart_left + chart_width, 1) + "\" y1=\"" + fixed(y_of(total), 2) +
               "\" y2=\"" + fixed(y_of(total), 2) + "\"><title>allocation: " +
               std::to_string(total) + (gpus ? " GPUs" : " CPUs") + "</title></line>";
    std::string node_paths;
    for (auto const& n : nodes)
        node_paths += step_path(n.steps, span, y_of,
                                "node-cpu\" data-node=\"" + std::to_string(n.node) + "\"" +
                                    node_stroke,
                                n.label + ": CPU cores of the whole node measured busy, at most " +
                                    fixed(most_of(n.steps), 2));
    return out + "<path class=\"busy\" d=\"" + path + "\"/>" + measured_path + node_paths +
           "</svg>";
}

// Each sampled node's used memory against the largest node's total.
std::string node_memory_svg(std::vector<node_line> const& nodes, std::uint64_t total,
                            time_span span)
{
    constexpr double height = 80;
    double peak = static_cast<double>(total);
    for (auto const& n : nodes) peak = std::max(peak, most_of(n.steps));
    if (peak <= 0) peak = 1;
    auto const y_of = [&](double v) { return 10 + height - height * v / peak; };
    std::string out = "<svg class=\"usage node-memory\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"960\" height=\"" + fixed(height + 36, 0) + "\">" +
                      axis(span, height + 10);
    out += "<text class=\"lane\" x=\"4\" y=\"" + fixed(y_of(peak) + 4, 1) + "\">" +
           memory_text(static_cast<std::uint64_t>(peak)) + "</text>";
    out += "<text class=\"lane\" x=\"4\" y=\"" + fixed(y_of(0), 1) + "\">0</text>";
    for (auto const& n : nodes)
        out += step_path(n.steps, span, y_of,
                         "node-mem\" data-node=\"" + std::to_string(n.node) + "\"" + node_stroke,
                         n.label + ": memory used on the whole node, at most " +
                             memory_text(static_cast<std::uint64_t>(most_of(n.steps))));
    return out + "</svg>";
}

std::string cell(std::string const& text) { return "<td>" + text + "</td>"; }

std::string optional_percent(std::optional<double> v)
{
    return v ? fixed(*v, 1) : std::string("-");
}

std::string optional_memory(std::optional<std::uint64_t> v)
{
    return v ? memory_text(*v) : std::string("-");
}

std::string log_anchor(report_attempt const& a)
{
    if (a.log_link.empty()) return "-";
    auto const href = html_escape(a.log_link);
    std::string out;
    for (auto const& f : a.log_files)
        out += "<a class=\"log\" href=\"" + href + "/" + html_escape(f) + "\">" +
               html_escape(f) + "</a> ";
    return out + "<a href=\"" + href + "/\">directory</a>";
}

// Device ids in numeric order when both are numbers ("2" before "10"), else as text.
bool gpu_id_less(std::string const& l, std::string const& r)
{
    auto const numeric = [](std::string const& s) {
        return !s.empty() && std::ranges::all_of(s, [](char c) { return c >= '0' && c <= '9'; });
    };
    if (numeric(l) && numeric(r) && l.size() != r.size()) return l.size() < r.size();
    return l < r;
}

constexpr char const* style = R"(body{font:14px sans-serif;margin:20px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{background:#eee}.axis line{stroke:#ddd}.axis text,.lane{font-size:11px;fill:#444}
.busy{fill:none;stroke:#1565c0;stroke-width:2}.measured{fill:none;stroke:#6a1b9a;stroke-width:1.5}
.series path,.gpu-series path{fill:none;stroke-width:1.5}.gpu-series .util{stroke:#2e7d32}.gpu-series .gmem{stroke:#6d4c41}.series .cpu{stroke:#1565c0}.series .mem{stroke:#ef6c00}
.series{background:#fafafa}.total{stroke:#c62828;stroke-dasharray:4 3}
.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
tr.failed td{background:#fdecea}.note{color:#555}
)";

}  // namespace

std::string html_escape(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char const c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::optional<double> parse_utc_timestamp(std::string_view text)
{
    if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
        text[13] != ':' || text[16] != ':' || text.back() != 'Z')
        return std::nullopt;
    auto const y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2),
               h = digits(text, 11, 2), mi = digits(text, 14, 2), s = digits(text, 17, 2);
    if (!y || !mo || !d || !h || !mi || !s || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 ||
        *h > 23 || *mi > 59 || *s > 60)
        return std::nullopt;
    double fraction = 0;
    auto const rest = text.substr(19, text.size() - 20);
    if (!rest.empty()) {
        if (rest.front() != '.' || rest.size() < 2) return std::nullopt;
        double scale = 0.1;
        for (char const c : rest.substr(1)) {
            if (c < '0' || c > '9') return std::nullopt;
            fraction += (c - '0') * scale;
            scale /= 10;
        }
    }
    return static_cast<double>(days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *s) +
           fraction;
}

std::vector<std::int64_t> assign_gpu_lanes(std::vector<report_attempt> const& attempts)
{
    return assign_slots(attempts, [](report_attempt const& a) { return a.num_gpus; });
}

std::vector<std::int64_t> assign_node_rows(std::vector<report_attempt> const& attempts)
{
    return assign_slots(attempts, [](report_attempt const&) { return std::int64_t{1}; });
}

gpu_lane_plan plan_gpu_lanes(std::vector<report_attempt> const& attempts,
                             std::map<std::int64_t, std::int64_t> const& node_gpus)
{
    gpu_lane_plan plan;
    plan.held.resize(attempts.size());
    std::map<std::int64_t, bool> recorded;  // node with GPU attempts -> all of them have ids
    for (auto const& a : attempts)
        if (a.num_gpus > 0 || !a.gpu_ids.empty()) {
            auto const [it, fresh] = recorded.try_emplace(a.compute_node_id, true);
            it->second = it->second && !a.gpu_ids.empty();
        }
    auto const assigned_lanes = assign_gpu_lanes(attempts);
    for (auto const& [node, all_recorded] : recorded) {
        auto& names = plan.lanes[node];
        if (all_recorded) {
            std::set<std::string, decltype(&gpu_id_less)> ids(&gpu_id_less);
            for (auto const& a : attempts)
                if (a.compute_node_id == node) ids.insert(a.gpu_ids.begin(), a.gpu_ids.end());
            names.assign(ids.begin(), ids.end());
            continue;
        }
        plan.assigned.insert(node);
        std::int64_t count = 0;
        if (auto it = node_gpus.find(node); it != node_gpus.end()) count = it->second;
        for (std::size_t i = 0; i < attempts.size(); ++i)
            if (attempts[i].compute_node_id == node && assigned_lanes[i] >= 0)
                count = std::max(count, assigned_lanes[i] + attempts[i].num_gpus);
        for (std::int64_t g = 0; g < count; ++g) names.push_back(std::to_string(g));
    }
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        auto const& a = attempts[i];
        auto const lanes = plan.lanes.find(a.compute_node_id);
        if (lanes == plan.lanes.end()) continue;
        if (!plan.assigned.contains(a.compute_node_id)) {
            for (auto const& id : a.gpu_ids)
                plan.held[i].push_back(static_cast<std::size_t>(
                    std::ranges::find(lanes->second, id) - lanes->second.begin()));
        } else if (assigned_lanes[i] >= 0) {
            for (std::int64_t g = 0; g < a.num_gpus; ++g)
                plan.held[i].push_back(static_cast<std::size_t>(assigned_lanes[i] + g));
        }
    }
    return plan;
}

std::string usage_series_svg(report_attempt const& a)
{
    if (a.series.empty()) return {};
    constexpr double width = 160, height = 32, top = 2;
    // The chart spans the attempt's life; its last sample may come a sampling interval early.
    double peak_cpu_seen = 0;
    double end = std::max(a.series.back().seconds, a.end_seconds - a.start_seconds);
    std::uint64_t peak_memory_seen = 0;
    for (auto const& p : a.series) {
        peak_cpu_seen = std::max(peak_cpu_seen, p.cpu_percent);
        peak_memory_seen = std::max(peak_memory_seen, p.memory_bytes);
    }
    double const cpu_peak = std::max(100.0, peak_cpu_seen);
    auto const memory_peak = std::max<std::uint64_t>(1, peak_memory_seen);
    if (!(end > 0)) end = 1;
    auto const x_of = [&](double t) { return fixed(width * std::clamp(t / end, 0.0, 1.0), 2); };
    auto const steps = [&](auto value_of) {
        // Each point's value holds over its stretch, from the previous point (the spawn first).
        std::string d = "M0," + fixed(top + height * (1 - value_of(a.series.front())), 2);
        for (auto const& p : a.series)
            d += " V" + fixed(top + height * (1 - value_of(p)), 2) + " H" + x_of(p.seconds);
        return d;
    };
    auto const cpu = steps([&](usage_point const& p) { return p.cpu_percent / cpu_peak; });
    auto const memory = steps([&](usage_point const& p) {
        return static_cast<double>(p.memory_bytes) / static_cast<double>(memory_peak);
    });
    return "<svg class=\"series\" data-attempt=\"" + attempt_key(a) + "\" data-points=\"" +
           std::to_string(a.series.size()) +
           "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"160\" height=\"36\"><title>" +
           std::to_string(a.series.size()) + " points over " + fixed(a.series.back().seconds, 1) +
           " s: CPU up to " + fixed(peak_cpu_seen, 1) + " % (blue), memory up to " +
           memory_text(peak_memory_seen) + " (orange)</title><path class=\"cpu\" d=\"" + cpu +
           "\"/><path class=\"mem\" d=\"" + memory + "\"/></svg>";
}

std::vector<usage_step> usage_steps(std::vector<report_attempt> const& attempts)
{
    std::map<double, std::pair<std::int64_t, std::int64_t>> change;  // time -> cpus, gpus delta
    for (auto const& a : attempts) {
        change[a.start_seconds].first += a.num_cpus;
        change[a.start_seconds].second += a.num_gpus;
        change[a.end_seconds].first -= a.num_cpus;
        change[a.end_seconds].second -= a.num_gpus;
    }
    std::vector<usage_step> out;
    usage_step now;
    for (auto const& [t, delta] : change) {
        now.seconds = t;
        now.cpus += delta.first;
        now.gpus += delta.second;
        out.push_back(now);
    }
    return out;
}

std::vector<measured_step> measured_cpu_steps(std::vector<report_attempt> const& attempts)
{
    std::map<double, double> change;  // time -> cores delta
    for (auto const& a : attempts) {
        double from = 0;
        for (auto const& p : a.series) {
            auto const cores = p.cpu_percent / 100.0;
            if (p.seconds > from && cores > 0) {
                change[a.start_seconds + from] += cores;
                change[a.start_seconds + p.seconds] -= cores;
            }
            from = std::max(from, p.seconds);
        }
    }
    std::vector<measured_step> out;
    double now = 0;
    for (auto const& [t, delta] : change) {
        now += delta;
        if (std::abs(now) < 1e-9) now = 0;  // what the sums of doubles leave of zero
        out.push_back({t, std::max(now, 0.0)});
    }
    return out;
}

namespace {

template <class Value>
std::vector<measured_step> node_steps(report_node const& node, Value const& value)
{
    std::vector<measured_step> out;
    if (!node.usage || node.usage->points.empty()) return out;
    double from = 0;
    for (auto const& p : node.usage->points) {
        out.push_back({node.usage->start_unix + from, value(p)});
        from = std::max(from, p.seconds);
    }
    out.push_back({node.usage->start_unix + from, 0});
    return out;
}

}  // namespace

std::vector<measured_step> node_cpu_steps(report_node const& node)
{
    auto const cpus = static_cast<double>(std::max<std::int64_t>(node.num_cpus, 0));
    return node_steps(node, [&](usage_point const& p) { return p.cpu_percent / 100.0 * cpus; });
}

std::vector<measured_step> node_memory_steps(report_node const& node)
{
    return node_steps(node,
                      [](usage_point const& p) { return static_cast<double>(p.memory_bytes); });
}

double time_to_x(double seconds, double begin, double end, double left, double width)
{
    if (end <= begin) return left;
    return left + width * std::clamp((seconds - begin) / (end - begin), 0.0, 1.0);
}

std::string render_report_html(report_input const& in)
{
    std::map<std::int64_t, report_node> nodes;
    std::int64_t total_cpus = 0, total_gpus = 0;
    for (auto const& n : in.nodes) {
        nodes[n.id] = n;
        total_cpus += n.num_cpus;
        total_gpus += n.num_gpus;
    }
    std::int64_t used_gpus = 0;
    for (auto const& a : in.attempts) used_gpus += a.num_gpus;
    std::map<std::int64_t, std::int64_t> node_gpus;
    for (auto const& n : in.nodes) node_gpus[n.id] = n.num_gpus;
    auto const lanes = plan_gpu_lanes(in.attempts, node_gpus);
    auto const title = "workflow " + std::to_string(in.workflow_id) + ": " + in.workflow_name;
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
                      html_escape("torcrun report: " + title) + "</title><style>" + style +
                      "</style></head><body>\n<h1>" + html_escape(title) + "</h1>\n";

    out += "<h2>Summary</h2>\n<table class=\"summary\"><tr><th>status</th><th>jobs</th></tr>";
    std::int64_t total_jobs = 0;
    for (auto const& [status, n] : in.job_counts) {
        total_jobs += n;
        out += "<tr>" + cell(html_escape(status)) + cell(std::to_string(n)) + "</tr>";
    }
    out += "<tr><th>total</th><th>" + std::to_string(total_jobs) + "</th></tr></table>\n";
    auto const span = span_of(in.attempts);
    out += "<p>" + std::to_string(in.attempts.size()) + " attempts on " +
           std::to_string(in.nodes.size()) + " compute nodes (" + std::to_string(total_cpus) +
           " CPUs, " + std::to_string(total_gpus) + " GPUs)";
    if (!in.attempts.empty())
        out += ", from " + format_utc(span.begin) + " to " + format_utc(span.end) + " (" +
               fixed(span.end - span.begin, 1) + " s)";
    out += ".</p>\n";

    out += "<h2>Timeline</h2>\n<p class=\"key\">one bar per attempt, by compute node and GPU:";
    for (auto const* s : {"completed", "failed", "terminated", "canceled"})
        out += "<span style=\"background:" + std::string(outcome_colour(s)) + "\"></span>" + s;
    out += "</p>\n";
    if (!lanes.assigned.empty()) {
        std::string which;
        for (auto const node : lanes.assigned)
            which += (which.empty() ? "" : ", ") + node_label(nodes, node);
        out += "<p class=\"note\">GPU lanes of " + html_escape(which) +
               ": the device ids the jobs held are not at hand (the job records in the output "
               "directory records them), so the GPU jobs are laid onto lanes lowest-free-first "
               "in start order, as the worker hands out ids.</p>\n";
    } else if (used_gpus > 0) {
        out += "<p class=\"note\">GPU lanes are the device ids each attempt held.</p>\n";
    }
    out += timeline_svg(in, nodes, lanes) + "\n";

    auto const steps = usage_steps(in.attempts);
    auto const measured = measured_cpu_steps(in.attempts);
    out += "<h2>Allocation use</h2>\n<p class=\"note\">CPUs and GPUs held by running attempts "
           "(their resource requirements); the dashed line is the allocation's total.";
    out += measured.empty()
               ? std::string(" No CPU samples are at hand (usage.json in the output directory).")
               : std::string(" The blue line is the CPUs held, the purple one the CPU cores "
                             "the jobs' own samples found busy.");
    auto const gpu_measured = measured_gpu_steps(in.attempts);
    if (total_gpus > 0 || used_gpus > 0)
        out += gpu_measured.empty()
                   ? std::string(" No GPU readings are at hand (the worker reads GPUs through "
                                 "NVML in direct mode on a node with the NVIDIA driver).")
                   : std::string(" On the GPU chart the purple line is the GPUs the jobs' "
                                 "NVML readings found busy (utilisation / 100) beside the GPUs "
                                 "held.");
    out += "</p>\n";
    std::vector<node_line> node_cpus, node_memory;
    std::uint64_t node_total_memory = 0;
    for (auto const& n : in.nodes) {
        if (!n.usage || n.usage->points.empty()) continue;
        auto const label = node_label(nodes, n.id);
        node_cpus.push_back({n.id, label, node_cpu_steps(n)});
        node_memory.push_back({n.id, label, node_memory_steps(n)});
        node_total_memory = std::max(node_total_memory, n.usage->total_memory_bytes);
    }
    if (!node_cpus.empty())
        out += "<p class=\"note node-usage\">The green lines are each compute node's whole CPU "
               "as its worker sampled it (resource_monitor.compute_node: its CPU % of the "
               "node's CPUs), whatever ran there; the chart below them its used memory.</p>\n";
    out += usage_svg(steps, span, total_cpus, false, "usage cpus", measured, node_cpus) + "\n";
    if (!node_memory.empty()) out += node_memory_svg(node_memory, node_total_memory, span) + "\n";
    if (total_gpus > 0 || used_gpus > 0)
        out += usage_svg(steps, span, total_gpus, true, "usage gpus", gpu_measured) + "\n";

    out += "<h2>Failures</h2>\n";
    std::string failures;
    for (auto const& a : in.attempts)
        if (a.status != "completed")
            failures += "<tr class=\"failed\">" + cell(html_escape(a.job_name)) +
                        cell(std::to_string(a.attempt_id)) + cell(html_escape(a.status)) +
                        cell(std::to_string(a.return_code)) + cell(log_anchor(a)) + "</tr>";
    out += failures.empty()
               ? std::string("<p>none</p>\n")
               : "<table class=\"failures\"><tr><th>job</th><th>attempt</th><th>status</th>"
                 "<th>rc</th><th>logs</th></tr>" +
                     failures + "</table>\n";

    out += "<h2>Attempts</h2>\n<p class=\"note\">CPU and memory as the worker measured each "
           "attempt: peak and time-weighted average, and over its life (CPU blue, scaled to at "
           "least 100 %; memory orange, scaled to its peak; hover for the figures). CPU % counts "
           "all cores, so 200 is two busy cores.</p>\n"
           "<table class=\"attempts\"><tr><th>job</th><th>id</th><th>run</th><th>attempt</th>"
           "<th>node</th><th>status</th><th>rc</th><th>start</th><th>seconds</th>"
           "<th>CPUs</th><th>GPUs</th><th>peak CPU %</th><th>avg CPU %</th>"
           "<th>peak memory</th><th>avg memory</th><th>GPU ids</th>"
           "<th>GPU use (peak / avg, memory)</th><th>over time</th>"
           "<th>logs</th></tr>";
    for (auto const& a : in.attempts)
        out += std::string(a.status == "completed" ? "<tr>" : "<tr class=\"failed\">") +
               cell(html_escape(a.job_name) +
                    (a.origin.empty() ? std::string()
                                      : " <span class=\"origin\">(" + html_escape(a.origin) +
                                            ")</span>")) +
               cell(std::to_string(a.job_id)) +
               cell(std::to_string(a.run_id)) + cell(std::to_string(a.attempt_id)) +
               cell(html_escape(where_ran(a, node_label(nodes, a.compute_node_id)))) +
               cell(html_escape(a.status)) + cell(std::to_string(a.return_code)) +
               cell(format_utc(a.start_seconds)) +
               cell(fixed(a.end_seconds - a.start_seconds, 3)) + cell(std::to_string(a.num_cpus)) +
               cell(std::to_string(a.num_gpus)) + cell(optional_percent(a.peak_cpu_percent)) +
               cell(optional_percent(a.avg_cpu_percent)) +
               cell(optional_memory(a.peak_memory_bytes)) +
               cell(optional_memory(a.avg_memory_bytes)) +
               cell(a.gpu_ids.empty() ? std::string("-") : html_escape(join(a.gpu_ids, ","))) +
               cell(gpu_use_cell(a)) +
               cell(a.series.empty() ? std::string("-") : usage_series_svg(a)) +
               cell(log_anchor(a)) + "</tr>";
    out += "</table>\n</body></html>\n";
    return out;
}

}  // namespace torcrun::core
