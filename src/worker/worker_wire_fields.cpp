// Reading the server's answers for the worker wire: JSON parsing, typed field reads with the
// first problem kept.
#include "worker_wire_fields.hpp"

#include "torcrun/common/json_kind.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <limits>

namespace torcrun::api::wire {
namespace {

// The start of an answer for a message: at most 80 characters, quoted.
std::string excerpt(std::string_view body)
{
    constexpr std::size_t shown = 80;
    if (body.size() <= shown) return detail::quoted(body);
    return detail::quoted(body.substr(0, shown)) + "...";
}

}  // namespace

core::result<json::value> parse_reply(std::string_view body)
{
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return core::error{"the answer is empty"};
    // Each answer is decoded into the worker's own types and then dropped: its strings, objects
    // and arrays go into one arena that the value itself keeps alive (a shared monotonic
    // resource), not one allocation each (a claim's answer was a hundred of them per job).
    boost::system::error_code ec;
    auto arena = json::make_shared_resource<json::monotonic_resource>(2 * body.size() + 256);
    auto v = json::parse(body, ec, std::move(arena));
    if (ec) return core::error{"the answer is not JSON (" + ec.message() + "): " + excerpt(body)};
    return v;
}

std::string indexed(std::string_view list, std::size_t index)
{
    std::string out(list);
    out += '[';
    out += std::to_string(index);
    out += ']';
    return out;
}

std::string root_problem(json::value const& v, std::string_view expected)
{
    return "the answer is " + std::string(detail::describe(v)) + ", not " + std::string(expected);
}

std::string field_reader::path(std::string_view name) const
{
    return prefix_.empty() ? std::string(name) : prefix_ + "." + std::string(name);
}

void field_reader::fail(std::string_view name, std::string problem)
{
    if (!error_) error_ = core::error{"field " + detail::quoted(path(name)) + problem};
}

void field_reader::wrong_type(std::string_view name, std::string_view expected,
                              json::value const& found)
{
    fail(name, ": expected " + std::string(expected) + ", found " +
                   std::string(detail::describe(found)));
}

json::value const* field_reader::present(std::string_view name) const
{
    auto const* v = object_.if_contains(name);
    return v == nullptr || v->is_null() ? nullptr : v;
}

json::value const* field_reader::required(std::string_view name)
{
    auto const* v = present(name);
    if (v == nullptr) fail(name, object_.contains(name) ? " is null" : " is missing");
    return v;
}

std::int64_t field_reader::integer(std::string_view name)
{
    auto const* v = required(name);
    if (v == nullptr) return 0;
    if (v->is_int64()) return v->get_int64();
    wrong_type(name, "an integer", *v);
    return 0;
}

std::optional<std::int64_t> field_reader::optional_integer(std::string_view name)
{
    auto const* v = present(name);
    if (v == nullptr) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    wrong_type(name, "an integer", *v);
    return std::nullopt;
}

std::uint32_t field_reader::count(std::string_view name, std::optional<std::uint32_t> fallback,
                                  std::uint32_t minimum)
{
    auto const* v = fallback ? present(name) : required(name);
    if (v == nullptr) return fallback.value_or(0);
    if (!v->is_int64()) {
        wrong_type(name, "an integer", *v);
        return 0;
    }
    auto const n = v->get_int64();
    if (n < minimum || n > std::numeric_limits<std::uint32_t>::max()) {
        fail(name, ": " + std::to_string(n) + " is outside " + std::to_string(minimum) + " to " +
                       std::to_string(std::numeric_limits<std::uint32_t>::max()));
        return 0;
    }
    return static_cast<std::uint32_t>(n);
}

std::string field_reader::text(std::string_view name, std::optional<std::string_view> fallback)
{
    auto const* v = fallback ? present(name) : required(name);
    if (v == nullptr) return std::string(fallback.value_or(""));
    if (v->is_string()) return std::string(v->get_string());
    wrong_type(name, "a string", *v);
    return {};
}

std::optional<std::string> field_reader::optional_text(std::string_view name)
{
    auto const* v = present(name);
    if (v == nullptr) return std::nullopt;
    if (v->is_string()) return std::string(v->get_string());
    wrong_type(name, "a string", *v);
    return std::nullopt;
}

bool field_reader::flag(std::string_view name, std::optional<bool> fallback)
{
    auto const* v = fallback ? present(name) : required(name);
    if (v == nullptr) return fallback.value_or(false);
    if (v->is_bool()) return v->get_bool();
    wrong_type(name, "a boolean", *v);
    return false;
}

core::env_map field_reader::variables(std::string_view name)
{
    core::env_map out;
    auto const* v = present(name);
    if (v == nullptr) return out;
    if (!v->is_object()) {
        wrong_type(name, "an object", *v);
        return out;
    }
    for (auto const& [key, value] : v->get_object()) {
        if (!value.is_string()) {
            fail(name, ": the value of \"" + std::string(key) + "\" is " +
                           std::string(api::detail::describe(value)) + ", not a string");
            return {};
        }
        out.emplace(key, value.get_string());
    }
    return out;
}

json::array const* field_reader::array(std::string_view name)
{
    auto const* v = present(name);
    if (v == nullptr) return nullptr;
    if (v->is_array()) return &v->get_array();
    wrong_type(name, "an array", *v);
    return nullptr;
}

json::object const* field_reader::object(std::string_view name)
{
    auto const* v = required(name);
    if (v == nullptr) return nullptr;
    if (v->is_object()) return &v->get_object();
    wrong_type(name, "an object", *v);
    return nullptr;
}

std::vector<std::int64_t> field_reader::ids(std::string_view name)
{
    std::vector<std::int64_t> out;
    auto const* list = array(name);
    if (list == nullptr) return out;
    for (std::size_t i = 0; i < list->size(); ++i) {
        auto const& item = (*list)[i];
        if (!item.is_int64()) {
            fail(indexed(name, i),
                 ": expected an integer, found " + std::string(detail::describe(item)));
            return {};
        }
        out.push_back(item.get_int64());
    }
    return out;
}

std::optional<std::int64_t> workflow_run_id(json::value const& workflow)
{
    auto const* o = workflow.if_object();
    auto const* v = o ? o->if_contains("run_id") : nullptr;
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= INT64_MAX) return static_cast<std::int64_t>(v->get_uint64());
    return std::nullopt;
}

}  // namespace torcrun::api::wire
