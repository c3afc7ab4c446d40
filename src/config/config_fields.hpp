// Struct members <-> normalized configuration values (private to src/config). A key's member is
// named by a chain of member pointers (`&worker_config::poll, &poll_settings::interval_seconds`),
// and the member's type picks the conversion, so table rows need no hand-written accessors.
#pragma once

#include <boost/json/value.hpp>

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace torcrun::core::detail {

// Choice names, in the order of the enums they stand for.
inline constexpr std::string_view run_mode_names[] = {"auto", "direct", "slurm"};
inline constexpr std::string_view log_severity_names[] = {"error", "warning", "info", "debug"};
inline constexpr std::string_view lost_job_policy_names[] = {"ready", "failed"};

inline void assign(bool& m, boost::json::value const& v) { m = v.as_bool(); }
inline void assign(double& m, boost::json::value const& v) { m = v.to_number<double>(); }
inline void assign(std::string& m, boost::json::value const& v) { m = v.as_string(); }
template <class I>
    requires std::integral<I> && (!std::same_as<I, bool>)
void assign(I& m, boost::json::value const& v)
{
    m = v.is_uint64() ? static_cast<I>(v.get_uint64()) : static_cast<I>(v.as_int64());
}
template <class E>
    requires std::is_enum_v<E>
void assign(E& m, boost::json::value const& v)
{
    m = static_cast<E>(v.as_int64());
}
void assign(std::vector<std::string>& m, boost::json::value const& v);
void assign(std::map<std::string, std::string>& m, boost::json::value const& v);
template <class T>
void assign(std::optional<T>& m, boost::json::value const& v)
{
    if (v.is_null()) return m.reset();
    T t{};
    assign(t, v);
    m = std::move(t);
}

inline boost::json::value normalize(bool m) { return m; }
inline boost::json::value normalize(double m) { return m; }
inline boost::json::value normalize(std::string const& m) { return boost::json::string(m); }
template <class I>
    requires std::integral<I> && (!std::same_as<I, bool>)
boost::json::value normalize(I m)
{
    if constexpr (std::is_unsigned_v<I>) return static_cast<std::uint64_t>(m);
    else return static_cast<std::int64_t>(m);
}
template <class E>
    requires std::is_enum_v<E>
boost::json::value normalize(E m)
{
    return static_cast<std::int64_t>(m);
}
boost::json::value normalize(std::vector<std::string> const& m);
boost::json::value normalize(std::map<std::string, std::string> const& m);
template <class T>
boost::json::value normalize(std::optional<T> const& m)
{
    return m ? normalize(*m) : boost::json::value(nullptr);
}

template <auto... Members>
struct field {
    template <class C>
    static void store(C& c, boost::json::value const& v)
    {
        assign((c .* ... .* Members), v);
    }
    template <class C>
    static boost::json::value load(C const& c)
    {
        return normalize((c .* ... .* Members));
    }
};

}  // namespace torcrun::core::detail
