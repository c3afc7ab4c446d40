// Parameter selection and combination for templates (docs/TORC-COMPATIBILITY.md §4.4). Torc's
// `resolve_parameters`, `cartesian_product` and `zip_parameters`, with a fixed order and with
// errors or warnings where Torc is silent (§4.10 item 14, missing `use_parameters` names).
#include "torcrun/spec/parameter_combinations.hpp"

#include "message_text.hpp"

#include <algorithm>

namespace torcrun::core::spec {

namespace {

std::string quoted_list(std::vector<std::string> const& names)
{
    std::string out = "[";
    for (std::size_t i = 0; i < names.size(); ++i)
        out.append(i ? ", " : "").append(quoted(names[i]));
    return out + "]";
}

std::vector<combination> zip_combinations(std::vector<named_values> const& parameters,
                                          std::size_t count)
{
    std::vector<combination> out(count);
    for (std::size_t i = 0; i < count; ++i)
        for (auto const& p : parameters) out[i].push_back({p.name, p.values[i]});
    return out;
}

// Odometer over the value indices: the last parameter turns fastest.
std::vector<combination> product_combinations(std::vector<named_values> const& parameters,
                                              std::size_t count)
{
    std::vector<combination> out;
    out.reserve(count);
    std::vector<std::size_t> index(parameters.size(), 0);
    for (std::size_t n = 0; n < count; ++n) {
        combination c;
        c.reserve(parameters.size());
        for (std::size_t p = 0; p < parameters.size(); ++p)
            c.push_back({parameters[p].name, parameters[p].values[index[p]]});
        out.push_back(std::move(c));
        for (std::size_t p = parameters.size(); p-- > 0;) {
            if (++index[p] < parameters[p].values.size()) break;
            index[p] = 0;
        }
    }
    return out;
}

result<std::size_t> product_count(std::vector<named_values> const& parameters)
{
    std::size_t count = 1;
    for (auto const& p : parameters) {
        if (p.values.empty()) return std::size_t{0};
    }
    for (auto const& p : parameters) {
        if (p.values.size() > max_combinations / count) {
            std::string sizes;
            for (auto const& q : parameters) {
                sizes += concat({sizes.empty() ? "" : ", ", quoted(q.name), " (",
                                 std::to_string(q.values.size()), " values)"});
            }
            return error{concat({"parameters: the product of ", sizes, " exceeds ",
                                 std::to_string(max_combinations), " combinations"})};
        }
        count *= p.values.size();
    }
    return count;
}

}  // namespace

parameter_selection select_parameters(std::optional<raw_parameters> const& own,
                                      std::optional<std::vector<std::string>> const& use,
                                      raw_parameters const& pool)
{
    parameter_selection out;
    if (own) {
        out.parameters = *own;
        if (use) {
            out.warnings.push_back(
                concat({"use_parameters: ", quoted_list(*use),
                        " is ignored because the entry has its own parameters"}));
        }
        return out;
    }
    if (!use) return out;
    raw_parameters chosen;
    for (auto const& name : *use) {
        auto const taken = [&](auto const& p) { return p.first == name; };
        if (std::any_of(chosen.begin(), chosen.end(), taken)) continue;
        auto const it = std::find_if(pool.begin(), pool.end(), taken);
        if (it == pool.end()) {
            out.warnings.push_back(concat(
                {"use_parameters: ", quoted(name), " is not a workflow parameter; it is skipped"}));
            continue;
        }
        chosen.push_back(*it);
    }
    if (!chosen.empty()) out.parameters = std::move(chosen);
    return out;
}

result<parameter_mode> parse_parameter_mode(std::optional<std::string_view> mode)
{
    if (!mode || *mode == "product") return parameter_mode::product;
    if (*mode == "zip") return parameter_mode::zip;
    return error{
        concat({"parameter_mode: ", quoted(*mode), " is neither \"product\" nor \"zip\""})};
}

result<std::size_t> count_combinations(std::vector<named_values> const& parameters,
                                       std::optional<std::string_view> mode)
{
    auto const parsed_mode = parse_parameter_mode(mode);
    if (!parsed_mode) return parsed_mode.error();
    if (parameters.empty()) return std::size_t{1};
    if (*parsed_mode == parameter_mode::product) return product_count(parameters);
    auto const& first = parameters.front();
    for (auto const& p : parameters) {
        if (p.values.size() == first.values.size()) continue;
        // Torc's wording, "1 values" included, so users can search for it.
        return error{concat({"All parameters must have the same number of values when using "
                             "'zip' mode. Parameter '",
                             first.name, "' has ", std::to_string(first.values.size()),
                             " values, but '", p.name, "' has ", std::to_string(p.values.size()),
                             " values."})};
    }
    return first.values.size();
}

result<std::vector<combination>> combine_parameters(std::vector<named_values> const& parameters,
                                                    std::optional<std::string_view> mode)
{
    auto const count = count_combinations(parameters, mode);
    if (!count) return count.error();
    if (parameters.empty()) return std::vector<combination>(1);
    if (*parse_parameter_mode(mode) == parameter_mode::zip)
        return zip_combinations(parameters, *count);
    return product_combinations(parameters, *count);
}

}  // namespace torcrun::core::spec
