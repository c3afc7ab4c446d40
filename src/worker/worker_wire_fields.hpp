// Reading the server's answers for the worker wire (internal to src/worker): the body parsed as
// JSON, and the fields of one object read with the first problem kept.
#pragma once

#include "torcrun/common/env_map.hpp"

#include "torcrun/common/error.hpp"

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
    core::env_map variables(std::string_view name);        // name -> string; absent or null: none
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

// "jobs[3]" (list may be empty: "[3]"), built so that GCC 12 sees no -Wrestrict (PR 105651).
std::string indexed(std::string_view list, std::size_t index);

// The run id a workflow record names (Torc 0.23's WorkflowModel and torcrun's carry it); nullopt
// for a v0.10 record, whose run id is read from GET /workflows/{id}/status instead.
std::optional<std::int64_t> workflow_run_id(json::value const& workflow);

// "an object" -> for messages about the answer's root.
std::string root_problem(json::value const& v, std::string_view expected);

}  // namespace torcrun::api::wire
