// Pieces shared by the worker wire's files (internal to src/worker): reading the server's answers
// field by field with the first problem kept, the model decoders, and the endpoint names that
// start every message ("start_job 42", the contract's operationIds).
#pragma once

#include "torcrun/worker/worker_wire.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::api::wire {

namespace json = boost::json;

// A whole answer body as JSON; the problem quotes the start of the body.
core::result<json::value> parse_reply(std::string_view body);

// Reads the fields of one JSON object. The first problem is kept (`field "<path>": <problem>`,
// the path from the answer's root: "jobs[1].command") and later reads return defaults, so a
// decoder reads every field and checks error() once.
class field_reader {
public:
    field_reader(json::object const& object, std::string prefix)
        : object_(object), prefix_(std::move(prefix))
    {}

    std::int64_t integer(std::string_view name);
    std::optional<std::int64_t> optional_integer(std::string_view name);  // absent or null
    // 0 ... UINT32_MAX (at least `minimum`); `fallback` when absent or null, else required.
    std::uint32_t count(std::string_view name, std::optional<std::uint32_t> fallback,
                        std::uint32_t minimum = 0);
    std::string text(std::string_view name, std::optional<std::string_view> fallback = {});
    std::optional<std::string> optional_text(std::string_view name);
    bool flag(std::string_view name, std::optional<bool> fallback);
    std::vector<std::int64_t> ids(std::string_view name);  // absent or null: none
    json::array const* array(std::string_view name);       // absent or null: nullptr
    json::object const* object(std::string_view name);     // required

    // Notes a problem with a field found by the caller.
    void fail(std::string_view name, std::string problem);
    std::string path(std::string_view name) const;

    bool ok() const { return !error_; }
    std::optional<core::error> const& error() const { return error_; }

private:
    json::value const* present(std::string_view name) const;  // nullptr when absent or null
    json::value const* required(std::string_view name);
    void wrong_type(std::string_view name, std::string_view expected, json::value const& found);

    json::object const& object_;
    std::string prefix_;
    std::optional<core::error> error_;
};

// The models, from parsed answers; errors are `field "...": ...` without the endpoint.
core::result<core::claimed_job> decode_job(json::value const& v, std::string const& path);
core::result<core::job_resources> decode_requirements(json::value const& v);
core::result<core::failure_handler> decode_failure_handler(json::value const& v);
core::result<core::workflow_action> decode_action(json::value const& v, std::string const& path);

// "jobs[3]" (list may be empty: "[3]"), built so that GCC 12 sees no -Wrestrict (PR 105651).
std::string indexed(std::string_view list, std::size_t index);

// "an object" -> for messages about the answer's root.
std::string root_problem(json::value const& v, std::string_view expected);

// The name of the request a server action sends at `step` (0 for the first).
std::string endpoint_of(core::worker_action const& action, std::size_t step);

// Compact JSON text with numbers as people write them ("240", "0.5"; Boost.JSON's serializer
// writes "2.4E2"), as Torc's serde and torcrun's server write them.
std::string to_text(json::value const& v);

// Unix seconds -> "2026-01-19T22:55:01.123Z" (Torc's %Y-%m-%dT%H:%M:%S%.3fZ, UTC).
std::string torc_time(double unix_seconds);

}  // namespace torcrun::api::wire
