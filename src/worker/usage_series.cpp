// See usage_series.hpp.
#include "torcrun/worker/usage_series.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/assert.hpp>
#include <boost/json.hpp>

#include <algorithm>

namespace torcrun::core {

namespace json = boost::json;
using detail::cat;

usage_series::usage_series(std::size_t capacity)
    : capacity_(std::max<std::size_t>(2, capacity + capacity % 2))
{
}

void usage_series::add(usage_sample const& sample)
{
    double const last = pending_ > 0 ? open_.seconds : marks_.empty() ? 0 : marks_.back().seconds;
    if (!(sample.seconds > last)) return;
    if (pending_ == 0) open_.memory_bytes = 0;
    open_.seconds = sample.seconds;
    open_.cpu_seconds = sample.cpu_seconds;
    open_.memory_bytes = std::max(open_.memory_bytes, sample.memory_bytes);
    if (++pending_ < stride_) return;
    // Reserved at the first mark, not at construction: a job that ends before its first sample
    // allocates nothing (the reserve is a large allocation, which costs a malloc consolidation).
    if (marks_.capacity() == 0) marks_.reserve(capacity_);
    marks_.push_back(open_);
    pending_ = 0;
    if (marks_.size() == capacity_) halve();
}

// Marks 0 and 1 become one (ending at 1), 2 and 3 one, ...: capacity/2 marks, each of twice
// the stride.
void usage_series::halve()
{
    BOOST_ASSERT(marks_.size() % 2 == 0);
    std::size_t out = 0;
    for (std::size_t i = 0; i + 1 < marks_.size(); i += 2) {
        auto merged = marks_[i + 1];
        merged.memory_bytes = std::max(marks_[i].memory_bytes, marks_[i + 1].memory_bytes);
        marks_[out++] = merged;
    }
    marks_.resize(out);
    stride_ *= 2;
}

std::vector<usage_point> usage_series::points() const
{
    std::vector<usage_point> out;
    out.reserve(marks_.size() + 1);
    double seconds = 0, cpu = 0;
    auto const point = [&](mark const& m) {
        // CPU totals that go down (a process left the tree unreaped) count as none.
        double const used = std::max(0.0, m.cpu_seconds - cpu);
        out.push_back({m.seconds, used / (m.seconds - seconds) * 100.0, m.memory_bytes});
        seconds = m.seconds;
        cpu = m.cpu_seconds;
    };
    for (auto const& m : marks_) point(m);
    if (pending_ > 0) point(open_);
    return out;
}

std::string usage_series_json(std::vector<usage_point> const& points)
{
    json::array seconds, cpu, memory;
    for (auto const& p : points) {
        seconds.push_back(p.seconds);
        cpu.push_back(p.cpu_percent);
        memory.push_back(p.memory_bytes);
    }
    return json::serialize(json::object{{"seconds", std::move(seconds)},
                                        {"cpu_percent", std::move(cpu)},
                                        {"memory_bytes", std::move(memory)}});
}

result<std::vector<usage_point>> parse_usage_series(std::string_view text, std::string_view source)
{
    boost::system::error_code ec;
    auto const v = json::parse(text, ec);
    if (ec) return error{cat(source, ": not JSON: ", ec.message())};
    if (!v.is_object()) return error{cat(source, ": not an object")};
    auto const& o = v.get_object();
    json::array const* columns[3] = {};
    char const* const names[3] = {"seconds", "cpu_percent", "memory_bytes"};
    for (int i = 0; i < 3; ++i) {
        auto const* c = o.if_contains(names[i]);
        if (!c || !c->is_array())
            return error{cat(source, ": \"", names[i], "\" is missing or not an array")};
        columns[i] = &c->get_array();
    }
    auto const n = columns[0]->size();
    if (columns[1]->size() != n || columns[2]->size() != n)
        return error{cat(source, ": the arrays have ", std::to_string(n), ", ",
                         std::to_string(columns[1]->size()), " and ",
                         std::to_string(columns[2]->size()), " entries")};
    std::vector<usage_point> out(n);
    for (std::size_t k = 0; k < n; ++k) {
        for (int i = 0; i < 3; ++i) {
            auto const& e = (*columns[i])[k];
            bool const ok = i == 2 ? (e.is_uint64() || (e.is_int64() && e.get_int64() >= 0))
                                   : e.is_number();
            if (!ok)
                return error{cat(source, ": ", names[i], "[", std::to_string(k), "] is not ",
                                 i == 2 ? "a byte count" : "a number")};
        }
        out[k] = {(*columns[0])[k].to_number<double>(), (*columns[1])[k].to_number<double>(),
                  (*columns[2])[k].to_number<std::uint64_t>()};
    }
    return out;
}

}  // namespace torcrun::core
