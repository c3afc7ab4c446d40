// YAML specs (docs/TORC-COMPATIBILITY.md §4.1): yaml-cpp's event parser drives a builder that
// produces the same JSON value serde_yaml 0.9 would hand Torc, recording the position of every
// value and key on the way so errors can point into the file. Scalars are typed by serde_yaml's own
// rules (`visit_untagged_str` and the core-schema tags, over the Rust number parsers in rust_text),
// not yaml-cpp's: only `~`, `null` and the empty scalar are null, only `true` and `false` are
// booleans, `0123` is a string, and `.inf`/`.nan` become null because a serde_json value cannot
// hold them. An alias copies its anchor's value, so the nodes aliases copy are counted and
// bounded (max_yaml_alias_nodes), which stops an alias bomb at the alias that crosses the limit.
#include "torcrun/spec/spec_reader.hpp"

#include "message_text.hpp"
#include "torcrun/spec/rust_text.hpp"
#include "torcrun/spec/spec_limits.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

namespace torcrun::core::spec {

namespace detail {

namespace {

constexpr std::string_view core_tag = "tag:yaml.org,2002:";

// Digits only (no sign), non-empty, all consumed.
std::optional<std::uint64_t> parse_digits(std::string_view digits, int base)
{
    std::uint64_t value = 0;
    auto const [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

boost::json::value unsigned_value(std::uint64_t v)
{
    if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return static_cast<std::int64_t>(v);
    return v;
}

// 0x, 0o and 0b integers, with an optional `+` or `-` before the prefix.
std::optional<boost::json::value> prefixed_integer(std::string_view v)
{
    bool const negative = v.starts_with('-');
    std::string_view rest = (negative || v.starts_with('+')) ? v.substr(1) : v;
    if (rest.size() < 2 || rest[0] != '0') return std::nullopt;
    int const base = rest[1] == 'x' ? 16 : rest[1] == 'o' ? 8 : rest[1] == 'b' ? 2 : 0;
    if (base == 0) return std::nullopt;
    rest.remove_prefix(2);
    // u64::from_str_radix takes one '+' of its own ("0x+1F"); the negative form builds
    // "-" + rest for i64::from_str_radix, which then takes no second sign.
    if (!negative && rest.starts_with('+')) rest.remove_prefix(1);
    auto const magnitude = parse_digits(rest, base);
    if (!magnitude) return std::nullopt;
    if (!negative) return unsigned_value(*magnitude);
    if (*magnitude > std::uint64_t{1} << 63) return std::nullopt;
    return static_cast<std::int64_t>(0 - *magnitude);
}

bool leading_zero_digits(std::string_view v)
{
    while (!v.empty() && (v.front() == '-' || v.front() == '+')) v.remove_prefix(1);
    if (v.size() < 2 || v.front() != '0') return false;
    for (char c : v.substr(1))
        if (c < '0' || c > '9') return false;
    return true;
}

boost::json::value float_value(double v)
{
    if (!std::isfinite(v)) return nullptr;  // serde_json's Value has no NaN or infinity
    return v;
}

result<boost::json::value> plain_value(std::string_view v)
{
    if (v.empty() || v == "~" || v == "null") return boost::json::value(nullptr);
    if (v == "true" || v == "false") return boost::json::value(v == "true");
    if (auto prefixed = prefixed_integer(v)) return *prefixed;
    if (leading_zero_digits(v)) return boost::json::value(v);
    if (auto u = rust::parse_usize(v)) return unsigned_value(*u);
    if (auto i = rust::parse_i64(v)) return boost::json::value(*i);
    // Rust's u128 and i128 parse these; a serde_json value cannot hold them.
    std::string_view digits = v;
    if (digits.starts_with('+') || digits.starts_with('-')) digits.remove_prefix(1);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == digits.npos)
        return error{concat({"the integer ", v, " does not fit in 64 bits"})};
    std::string_view unplussed = v;
    while (!unplussed.empty() && unplussed.front() == '+') unplussed.remove_prefix(1);
    if (unplussed == ".inf" || unplussed == ".Inf" || unplussed == ".INF" || v == "-.inf"
        || v == "-.Inf" || v == "-.INF" || v == ".nan" || v == ".NaN" || v == ".NAN")
        return boost::json::value(nullptr);
    if (auto f = rust::parse_f64(v); f && std::isfinite(*f)) return boost::json::value(*f);
    return boost::json::value(v);
}

result<boost::json::value> tagged_value(std::string_view type, std::string_view v)
{
    auto const invalid = [&](std::string_view expected) {
        return error{concat({"!!", type, " ", quoted(v), " is not ", expected})};
    };
    if (type == "bool") {
        if (v == "true" || v == "false") return boost::json::value(v == "true");
        return invalid("a boolean");
    }
    if (type == "int") {
        if (auto i = rust::parse_i64(v)) return boost::json::value(*i);
        return invalid("an integer");
    }
    if (type == "float") {
        if (auto f = rust::parse_f64(v)) return float_value(*f);
        return invalid("a float");
    }
    if (type == "null") {
        if (v == "~" || v == "null") return boost::json::value(nullptr);
        return invalid("null");
    }
    return boost::json::value(v);
}

// `tag` as yaml-cpp reports it: "?" for a plain scalar, "!" for a quoted or block scalar,
// or the full tag ("tag:yaml.org,2002:int" for `!!int`). An error message has no position;
// the caller adds it.
result<boost::json::value> yaml_scalar_value(std::string_view tag, std::string_view text)
{
    if (tag == "?") return plain_value(text);
    if (tag.substr(0, core_tag.size()) == core_tag)
        return tagged_value(tag.substr(core_tag.size()), text);
    return boost::json::value(text);  // "!" (quoted or block) and any other tag: a string
}

}  // namespace

}  // namespace detail

namespace {

source_position position_of(YAML::Mark const& mark)
{
    return {static_cast<std::uint32_t>(mark.line + 1), static_cast<std::uint32_t>(mark.column + 1)};
}

class json_builder : public YAML::EventHandler {
public:
    explicit json_builder(std::string_view text) : text_(text) {}

    bool failed() const noexcept { return failure_.has_value(); }
    // The document built, or the first problem met, located in `origin`.
    result<spec_document> finish(std::string_view origin) &&;

    void OnDocumentStart(YAML::Mark const& mark) override
    {
        if (++documents_ > 1) fail(mark, "a spec is one YAML document; a second one starts here");
    }
    void OnDocumentEnd() override {}
    void OnNull(YAML::Mark const& mark, YAML::anchor_t anchor) override;
    void OnAlias(YAML::Mark const& mark, YAML::anchor_t anchor) override;
    void OnScalar(YAML::Mark const& mark, std::string const& tag, YAML::anchor_t anchor,
                  std::string const& value) override;
    void OnSequenceStart(YAML::Mark const& mark, std::string const&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override
    {
        open(mark, anchor, boost::json::array{});
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(YAML::Mark const& mark, std::string const&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override
    {
        open(mark, anchor, boost::json::object{});
    }
    void OnMapEnd() override { close(); }

private:
    struct frame {
        boost::json::value value;
        std::string pointer;
        YAML::anchor_t anchor = 0;
        std::optional<std::string> key;  // a mapping's key waiting for its value
        source_position key_position;
        std::size_t nodes = 1;  // in the subtree so far, this one included
    };
    struct anchored {
        boost::json::value value;
        std::size_t nodes = 1;
    };

    bool expecting_key() const
    {
        return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().key;
    }
    void fail(YAML::Mark const& mark, std::string message)
    {
        if (!failure_) failure_.emplace(mark, std::move(message));
    }
    std::string next_pointer() const;
    void record(std::string const& pointer, YAML::Mark const& mark);
    std::string_view null_text(YAML::Mark const& mark, bool as_key) const;
    void add(YAML::anchor_t anchor, boost::json::value value, std::size_t nodes = 1);
    void add_key(YAML::Mark const& mark, std::string key);
    void open(YAML::Mark const& mark, YAML::anchor_t anchor, boost::json::value empty);
    void close();

    boost::json::value root_;
    spec_document::yaml_positions positions_;
    std::optional<std::pair<YAML::Mark, std::string>> failure_;
    std::string_view text_;
    int documents_ = 0;
    std::vector<frame> stack_;
    std::map<YAML::anchor_t, anchored> anchors_;
    std::size_t alias_nodes_ = 0;  // copied by aliases so far
};

std::string json_builder::next_pointer() const
{
    if (stack_.empty()) return "";
    auto const& parent = stack_.back();
    if (parent.value.is_object()) return json_pointer_append(parent.pointer, *parent.key);
    return json_pointer_append(parent.pointer, parent.value.get_array().size());
}

void json_builder::record(std::string const& pointer, YAML::Mark const& mark)
{
    auto& entry = positions_[pointer];
    entry.value = position_of(mark);
    if (!stack_.empty() && stack_.back().value.is_object()) entry.key = stack_.back().key_position;
}

void json_builder::add(YAML::anchor_t anchor, boost::json::value value, std::size_t nodes)
{
    if (anchor) anchors_[anchor] = {value, nodes};
    if (stack_.empty()) {
        root_ = std::move(value);
        return;
    }
    auto& parent = stack_.back();
    parent.nodes += nodes;
    if (parent.value.is_array()) {
        parent.value.get_array().push_back(std::move(value));
        return;
    }
    // serde_json keeps the last of repeated keys.
    parent.value.get_object().insert_or_assign(*parent.key, std::move(value));
    parent.key.reset();
}

void json_builder::add_key(YAML::Mark const& mark, std::string key)
{
    stack_.back().key = std::move(key);
    stack_.back().key_position = position_of(mark);
}

void json_builder::open(YAML::Mark const& mark, YAML::anchor_t anchor, boost::json::value empty)
{
    if (failure_) return;
    if (expecting_key()) return fail(mark, "a YAML mapping key must be a scalar");
    if (stack_.size() >= json_max_depth) {
        return fail(mark, concat({"nesting is deeper than ", std::to_string(json_max_depth),
                                  " sequences and mappings"}));
    }
    std::string pointer = next_pointer();
    record(pointer, mark);
    stack_.push_back({std::move(empty), std::move(pointer), anchor, std::nullopt, {}});
}

void json_builder::close()
{
    if (failure_) return;
    frame done = std::move(stack_.back());
    stack_.pop_back();
    add(done.anchor, std::move(done.value), done.nodes);
}

// The source text of a null scalar: yaml-cpp reports `~`, `null`, `Null`, `NULL` and the
// empty scalar alike, but serde_yaml reads `Null` and `NULL` as strings.
std::string_view json_builder::null_text(YAML::Mark const& mark, bool as_key) const
{
    if (mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= text_.size()) return "";
    std::string_view const at = text_.substr(static_cast<std::size_t>(mark.pos));
    for (std::string_view word : {"null", "Null", "NULL", "~"}) {
        if (!at.starts_with(word)) continue;
        std::string_view after = at.substr(word.size());
        while (after.starts_with(' ') || after.starts_with('\t')) after.remove_prefix(1);
        // An empty value's mark points at the next token; a key there is followed by ':'.
        bool const next_key =
            after.starts_with(':')
            && (after.size() == 1 || after[1] == ' ' || after[1] == '\n' || after[1] == '\r');
        if (as_key || !next_key) return word;
    }
    return "";
}

void json_builder::OnNull(YAML::Mark const& mark, YAML::anchor_t anchor)
{
    if (failure_) return;
    std::string_view const text = null_text(mark, expecting_key());
    if (expecting_key()) return add_key(mark, std::string(text));
    record(next_pointer(), mark);
    if (text == "Null" || text == "NULL") return add(anchor, boost::json::value(text));
    add(anchor, nullptr);
}

void json_builder::OnAlias(YAML::Mark const& mark, YAML::anchor_t anchor)
{
    if (failure_) return;
    auto const it = anchors_.find(anchor);
    if (it == anchors_.end()) return fail(mark, "a YAML alias names no anchor");
    auto const& [value, nodes] = it->second;
    if (expecting_key()) {
        if (!value.is_string()) return fail(mark, "a YAML mapping key must be a scalar");
        return add_key(mark, std::string(value.get_string()));
    }
    if (nodes > max_yaml_alias_nodes - alias_nodes_) {
        return fail(mark,
                    concat({"this alias would bring the nodes copied by YAML aliases to ",
                            std::to_string(alias_nodes_ + nodes), ", past torcrun's limit of ",
                            std::to_string(max_yaml_alias_nodes),
                            " (an alias bomb?); write the values out or use fewer aliases"}));
    }
    alias_nodes_ += nodes;
    record(next_pointer(), mark);
    add(0, value, nodes);
}

void json_builder::OnScalar(YAML::Mark const& mark, std::string const& tag, YAML::anchor_t anchor,
                            std::string const& value)
{
    if (failure_) return;
    if (expecting_key()) {
        // serde_json's map reads every key as a string: the scalar's text, whatever its type.
        if (anchor) anchors_[anchor] = {boost::json::value(value), 1};
        return add_key(mark, value);
    }
    auto typed = detail::yaml_scalar_value(tag, value);
    if (!typed) return fail(mark, typed.error().message);
    record(next_pointer(), mark);
    add(anchor, std::move(*typed));
}

std::string location_text(std::string_view origin, YAML::Mark const& mark)
{
    auto const p = position_of(mark);
    return concat({origin, ":", std::to_string(p.line), ":", std::to_string(p.column)});
}

result<spec_document> json_builder::finish(std::string_view origin) &&
{
    if (failure_)
        return error{concat({location_text(origin, failure_->first), ": ", failure_->second})};
    return spec_document(std::move(root_), std::string(origin), std::move(positions_));
}

}  // namespace

result<spec_document> read_yaml_document(std::string_view text, std::string_view origin)
{
    std::istringstream in{std::string(text)};
    json_builder builder(text);
    try {
        YAML::Parser parser(in);
        while (!builder.failed() && parser.HandleNextDocument(builder)) {
        }
    } catch (YAML::DeepRecursion const& e) {
        // yaml-cpp reads on after the builder's depth limit and, past its own deeper one, says
        // only "bad file": the builder's message names the limit.
        if (builder.failed()) return std::move(builder).finish(origin);
        return error{concat({location_text(origin, e.mark), ": ", e.msg})};
    } catch (YAML::Exception const& e) {
        return error{concat({location_text(origin, e.mark), ": ", e.msg})};
    }
    return std::move(builder).finish(origin);
}

}  // namespace torcrun::core::spec
