// Server-sent-event frames of job status changes (event_stream.hpp).
#include "torcrun/server/event_stream.hpp"

#include "torcrun/server/job_status.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace torcrun::core {
namespace {

boost::json::value or_null(std::optional<std::int64_t> v)
{
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
}

}  // namespace

std::optional<std::string> format_sse_frame(stored_event const& e)
{
    boost::system::error_code ec;
    auto const parsed = boost::json::parse(e.data, ec);
    if (ec || !parsed.is_object()) return std::nullopt;
    auto const& o = parsed.get_object();
    auto const* category = o.if_contains("category");
    auto const* type = o.if_contains("type");
    auto const* job_id = o.if_contains("job_id");
    auto const* to = o.if_contains("to");
    if (category == nullptr || type == nullptr || job_id == nullptr || to == nullptr ||
        !category->is_string() || category->get_string() != "job" || !type->is_string() ||
        type->get_string() != "status_change" || !job_id->is_int64() || !to->is_string())
        return std::nullopt;
    auto const status = parse_job_status(std::string_view(to->get_string()));
    if (!status) return std::nullopt;

    boost::json::object data{{"job_id", job_id->get_int64()},
                             {"job_name", e.job_name ? boost::json::value(*e.job_name)
                                                     : boost::json::value(nullptr)}};
    std::string event_type;
    std::string severity = "info";
    if (*status == job_status::running) {
        event_type = "job_started";
        data["compute_node_id"] = or_null(e.compute_node_id);
        data["run_id"] = or_null(e.run_id);
    } else {
        event_type = "job_" + std::string(to_string(*status));
        data["status"] = std::string(to_string(*status));
        if (*status == job_status::completed || *status == job_status::failed ||
            *status == job_status::canceled || *status == job_status::terminated)
            data["return_code"] = or_null(e.return_code);
        if (*status == job_status::failed) severity = "error";
        if (*status == job_status::canceled || *status == job_status::terminated)
            severity = "warning";
    }
    boost::json::object event{{"workflow_id", e.workflow_id},
                              {"timestamp", e.timestamp_ms},
                              {"event_type", event_type},
                              {"severity", severity},
                              {"data", std::move(data)}};
    return "event: " + event_type + "\ndata: " + boost::json::serialize(event) + "\n\n";
}

}  // namespace torcrun::core
