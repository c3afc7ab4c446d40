// The attempt record's lines (attempt_record.hpp): built with Boost.JSON, read back line by line.
#include "torcrun/worker/attempt_record.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace torcrun::core {

namespace json = boost::json;

namespace {

json::object header(torc_job_identity const& id, std::string_view kind)
{
    return json::object{{"kind", kind},
                        {"workflow_id", id.workflow_id},
                        {"job_id", id.job_id},
                        {"run_id", id.run_id},
                        {"attempt_id", id.attempt_id}};
}

std::optional<std::int64_t> integer(json::object const& o, std::string_view key)
{
    auto const* v = o.if_contains(key);
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    return std::nullopt;
}

std::optional<std::string> text(json::object const& o, std::string_view key)
{
    auto const* v = o.if_contains(key);
    if (!v || !v->is_string()) return std::nullopt;
    return std::string(v->get_string());
}

}  // namespace

record_key key_of(torc_job_identity const& id)
{
    return {id.workflow_id, id.job_id, id.run_id, id.attempt_id};
}

std::string attempt_line(torc_job_identity const& id, std::string_view command,
                         std::string_view environment, std::string_view bound_cpus)
{
    auto o = header(id, "attempt");
    o["command"] = command;
    o["environment"] = environment;
    if (!bound_cpus.empty()) o["cpus"] = bound_cpus;
    return json::serialize(o);
}

std::string usage_line(torc_job_identity const& id, std::vector<usage_point> const& points)
{
    auto o = header(id, "usage");
    o["points"] = json::parse(usage_series_json(points));
    return json::serialize(o);
}

std::string gpu_line(torc_job_identity const& id, gpu_usage_summary const& gpu)
{
    auto o = header(id, "gpu");
    o["gpu"] = gpu_usage_json(gpu);
    return json::serialize(o);
}

std::string result_line(json::object result)
{
    result["kind"] = "result";
    return json::serialize(result);
}

std::vector<std::string> read_attempt_record(std::string_view text_in, std::string_view origin,
                                             attempt_record_book& book)
{
    std::vector<std::string> skipped;
    std::size_t line_no = 0;
    while (!text_in.empty()) {
        auto const end = text_in.find('\n');
        auto const line = text_in.substr(0, end);
        text_in.remove_prefix(end == std::string_view::npos ? text_in.size() : end + 1);
        ++line_no;
        if (line.empty()) continue;
        auto const skip = [&](std::string_view why) {
            skipped.push_back(detail::cat(origin, ":", std::to_string(line_no), ": ", why));
        };
        boost::system::error_code ec;
        auto v = json::parse(line, ec);
        if (ec) {
            skip("not JSON: " + ec.message());
            continue;
        }
        if (!v.is_object()) {
            skip("not a JSON object");
            continue;
        }
        auto& o = v.get_object();
        auto const kind = text(o, "kind");
        auto const wf = integer(o, "workflow_id"), job = integer(o, "job_id"),
                   run = integer(o, "run_id"), attempt = integer(o, "attempt_id");
        if (!kind || !wf || !job || !run || !attempt) {
            skip("kind, workflow_id, job_id, run_id or attempt_id missing");
            continue;
        }
        auto& facts = book[record_key{*wf, *job, *run, *attempt}];
        if (*kind == "attempt") {
            facts.command = text(o, "command");
            facts.environment = text(o, "environment");
            facts.bound_cpus = text(o, "cpus").value_or("");
        } else if (*kind == "usage") {
            auto const* points = o.if_contains("points");
            auto series = points ? parse_usage_series(json::serialize(*points), origin)
                                 : result<std::vector<usage_point>>(error{"points missing"});
            if (!series) {
                skip(series.error().message);
                continue;
            }
            facts.usage = std::move(*series);
        } else if (*kind == "gpu") {
            auto const* g = o.if_contains("gpu");
            auto gpu = g && g->is_object() ? gpu_usage_from_json(g->get_object())
                                           : result<gpu_usage_summary>(error{"gpu missing"});
            if (!gpu) {
                skip(gpu.error().message);
                continue;
            }
            facts.gpu = std::move(*gpu);
        } else if (*kind == "result") {
            o.erase("kind");
            facts.result = std::move(o);
        } else {
            skip(detail::cat("kind \"", *kind, "\" is unknown"));
        }
    }
    return skipped;
}

}  // namespace torcrun::core
