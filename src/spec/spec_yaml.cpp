// YAML specs (docs/TORC-COMPATIBILITY.md §4.1): yaml-cpp's event parser drives a builder that
// produces the same JSON value serde_yaml 0.9 would hand Torc (scalar typing in yaml_scalar.cpp),
// recording the position of every value and key on the way so errors can point into the file.
#include "torcrun/spec/spec_reader.hpp"

#include "message_text.hpp"
#include "yaml_scalar.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <sstream>
#include <vector>

namespace torcrun::core::spec {

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
    void add(YAML::anchor_t anchor, boost::json::value value);
    void add_key(YAML::Mark const& mark, std::string key);
    void open(YAML::Mark const& mark, YAML::anchor_t anchor, boost::json::value empty);
    void close();

    boost::json::value root_;
    spec_document::yaml_positions positions_;
    std::optional<std::pair<YAML::Mark, std::string>> failure_;
    std::string_view text_;
    int documents_ = 0;
    std::vector<frame> stack_;
    std::map<YAML::anchor_t, boost::json::value> anchors_;
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

void json_builder::add(YAML::anchor_t anchor, boost::json::value value)
{
    if (anchor) anchors_[anchor] = value;
    if (stack_.empty()) {
        root_ = std::move(value);
        return;
    }
    auto& parent = stack_.back();
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
    add(done.anchor, std::move(done.value));
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
    if (expecting_key()) {
        if (!it->second.is_string()) return fail(mark, "a YAML mapping key must be a scalar");
        return add_key(mark, std::string(it->second.get_string()));
    }
    record(next_pointer(), mark);
    add(0, it->second);
}

void json_builder::OnScalar(YAML::Mark const& mark, std::string const& tag, YAML::anchor_t anchor,
                            std::string const& value)
{
    if (failure_) return;
    if (expecting_key()) {
        // serde_json's map reads every key as a string: the scalar's text, whatever its type.
        if (anchor) anchors_[anchor] = boost::json::value(value);
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
    } catch (YAML::Exception const& e) {
        return error{concat({location_text(origin, e.mark), ": ", e.msg})};
    }
    return std::move(builder).finish(origin);
}

}  // namespace torcrun::core::spec
