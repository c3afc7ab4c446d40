// One stored row as values, between the JSON codec (api) and SQLite (io): a cell per field, in
// storage form. Booleans and job statuses are integers, JSON objects and JSON-valued strings are
// their text, id lists are vectors (the store keeps a job's links in link tables and other lists
// as JSON text). The store never parses JSON; the codec never sees SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace torcrun::api {

using id_list = std::vector<std::int64_t>;

// monostate is SQL NULL / an absent optional field.
using cell = std::variant<std::monostate, std::int64_t, double, std::string, id_list>;

class record {
public:
    // Sets or replaces the named cell, keeping first-insertion order.
    void set(std::string_view name, cell value)
    {
        for (auto& [key, v] : cells_) {
            if (key == name) {
                v = std::move(value);
                return;
            }
        }
        cells_.emplace_back(std::string(name), std::move(value));
    }

    void erase(std::string_view name)
    {
        std::erase_if(cells_, [&](auto const& kv) { return kv.first == name; });
    }

    cell const* find(std::string_view name) const
    {
        for (auto const& [key, v] : cells_) {
            if (key == name) return &v;
        }
        return nullptr;
    }

    // Present and not NULL.
    bool has_value(std::string_view name) const
    {
        auto const* c = find(name);
        return c != nullptr && !std::holds_alternative<std::monostate>(*c);
    }

    std::optional<std::int64_t> int64(std::string_view name) const
    {
        auto const* c = find(name);
        if (c == nullptr) return std::nullopt;
        if (auto const* i = std::get_if<std::int64_t>(c)) return *i;
        return std::nullopt;
    }

    std::string const* text(std::string_view name) const
    {
        auto const* c = find(name);
        return c == nullptr ? nullptr : std::get_if<std::string>(c);
    }

    id_list const* ids(std::string_view name) const
    {
        auto const* c = find(name);
        return c == nullptr ? nullptr : std::get_if<id_list>(c);
    }

    auto begin() const { return cells_.begin(); }
    auto end() const { return cells_.end(); }
    std::size_t size() const { return cells_.size(); }
    bool empty() const { return cells_.empty(); }

    bool operator==(record const&) const = default;

private:
    std::vector<std::pair<std::string, cell>> cells_;
};

}  // namespace torcrun::api
