// Help text read back into completion words, and the bash script (completion_script.hpp).
#include "torcrun/cli/completion_script.hpp"

#include <boost/algorithm/string/split.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace torcrun::apps {

namespace {

void add_unique(std::vector<std::string>& words, std::string const& word)
{
    if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
}

bool is_option_word(std::string_view word)
{
    return word.size() >= 2 && word[0] == '-' && word != "--" &&
           std::all_of(word.begin() + 1, word.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
}

// A subcommand word: lower-case letters and dashes only ("sync-status", not "WF" or "SPEC"),
// and not the synopsis's "[options]".
bool is_subcommand_word(std::string_view word)
{
    return !word.empty() && word != "options" && std::isalpha(static_cast<unsigned char>(word[0])) &&
           std::all_of(word.begin(), word.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || c == '-';
           });
}

std::string strip_brackets(std::string_view word)
{
    while (!word.empty() && (word.front() == '[' || word.front() == '(')) word.remove_prefix(1);
    while (!word.empty() && (word.back() == ']' || word.back() == ')' || word.back() == ':' ||
                             word.back() == ','))
        word.remove_suffix(1);
    return std::string(word);
}

std::vector<std::string> words_of(std::string_view text)
{
    std::vector<std::string> words;
    std::istringstream in{std::string(text)};
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

std::vector<std::string> split_bars(std::string const& word)
{
    std::vector<std::string> parts;
    boost::split(parts, word, [](char c) { return c == '|'; });
    return parts;
}

// A usage line: `usage: torcrun NAME [sub|sub] ... [--opt a|b]` or its continuation
// `       torcrun NAME sub ...`.
void read_usage_line(std::string_view name, std::vector<std::string> const& words,
                     command_words& out)
{
    auto at = std::find(words.begin(), words.end(), "torcrun");
    if (at == words.end() || ++at == words.end() || *at != name) return;
    ++at;
    if (at != words.end()) {
        auto const first = strip_brackets(*at);
        auto const parts = split_bars(first);
        if (std::all_of(parts.begin(), parts.end(), is_subcommand_word)) {
            for (auto const& p : parts) add_unique(out.subcommands, p);
            // `torcrun workflows sync-status WF [--dry-run]`: the options are the subcommand's
            // (its own help lists them); `[list]`, optional, is the command itself.
            if (!at->starts_with('[')) return;
        }
    }
    for (; at != words.end(); ++at) {
        auto const word = strip_brackets(*at);
        if (!is_option_word(word) || word[1] != '-') continue;
        add_unique(out.options, word);
        if (std::next(at) == words.end()) continue;
        auto const value = strip_brackets(*std::next(at));
        auto const parts = split_bars(value);
        if (parts.size() > 1 && std::all_of(parts.begin(), parts.end(), is_subcommand_word)) {
            add_unique(out.value_options, word);
            out.choices[word] = parts;
        }
    }
}

// An option row of Boost's table: `  -f [ --follow ]      text`, `  --url URL    text`. The
// row's head ends at the first run of two spaces (where the description column starts).
void read_option_row(std::string_view line, command_words& out)
{
    auto const start = line.find_first_not_of(' ');
    line.remove_prefix(start);
    auto const gap = line.find("  ");
    auto const head = words_of(line.substr(0, gap));
    bool named = false;
    bool takes_value = false;
    std::vector<std::string> names;
    for (auto const& raw : head) {
        if (raw == "[" || raw == "]") continue;
        if (raw.starts_with("(=")) continue;  // a default value: `--mode arg (=auto)`
        if (is_option_word(raw)) {
            names.push_back(raw);
            named = true;
        } else if (named) {
            takes_value = true;
        }
    }
    for (auto const& n : names) {
        add_unique(out.options, n);
        if (takes_value) add_unique(out.value_options, n);
    }
}

// The words separated by spaces (boost::algorithm::join trips GCC 12's false -Wrestrict at -O3).
std::string joined(std::vector<std::string> const& words)
{
    std::string text;
    for (auto const& w : words) {
        if (!text.empty()) text += ' ';
        text += w;
    }
    return text;
}

// A name as a bash array key: "slurm-script" -> slurm_script, "workflows sync-status" ->
// workflows__sync_status, "--mode" -> __mode.
std::string shell_word(std::string_view name)
{
    std::string word;
    for (char c : name) {
        if (c == ' ') word += "__";
        else word += c == '-' ? '_' : c;
    }
    return word;
}

}  // namespace

command_words read_help(std::string_view name, std::string_view help)
{
    command_words out;
    out.name = std::string(name);
    std::istringstream in{std::string(help)};
    for (std::string line; std::getline(in, line);) {
        auto const words = words_of(line);
        if (words.empty()) continue;
        if (words[0] == "usage:" || words[0] == "torcrun") {
            read_usage_line(name, words, out);
        } else if (words[0].starts_with('-') && line.starts_with(' ')) {
            read_option_row(line, out);
        }
    }
    return out;
}

std::string bash_completion_script(std::span<command_words const> commands)
{
    std::vector<std::string> names;
    for (auto const& c : commands)
        if (c.name.find(' ') == std::string::npos) names.push_back(c.name);
    std::ostringstream s;
    s << "# bash completion for torcrun, written by `torcrun completion bash` from the options\n"
         "# each command's --help prints. Use: source <(torcrun completion bash), or save it as\n"
         "# ~/.local/share/bash-completion/completions/torcrun.\n"
         "declare -gA _torcrun_options=() _torcrun_values=() _torcrun_subcommands=() "
         "_torcrun_choices=()\n"
         "_torcrun_commands='"
      << joined(names) << "'\n";
    for (auto const& c : commands) {
        auto const key = shell_word(c.name);
        s << "_torcrun_options[" << key << "]='" << joined(c.options) << "'\n";
        if (!c.value_options.empty())
            s << "_torcrun_values[" << key << "]=' " << joined(c.value_options)
              << " '\n";
        if (!c.subcommands.empty())
            s << "_torcrun_subcommands[" << key << "]='"
              << joined(c.subcommands) << "'\n";
        for (auto const& [option, values] : c.choices)
            s << "_torcrun_choices[" << key << shell_word(option) << "]='"
              << joined(values) << "'\n";
    }
    s << R"(_torcrun() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        mapfile -t COMPREPLY < <(compgen -W "$_torcrun_commands" -- "$cur")
        return 0
    fi
    local cmd=${COMP_WORDS[1]//-/_}
    # after a subcommand (`workflows sync-status`), its own options
    if [ "$COMP_CWORD" -gt 2 ] && [ -n "${_torcrun_options[${cmd}__${COMP_WORDS[2]//-/_}]+set}" ]; then
        cmd=${cmd}__${COMP_WORDS[2]//-/_}
    fi
    [ -n "${_torcrun_options[$cmd]+set}" ] || { mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0; }
    if [[ "${_torcrun_values[$cmd]}" == *" $prev "* ]]; then
        local choices=${_torcrun_choices[$cmd${prev//-/_}]}
        if [ -n "$choices" ]; then
            mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
        else
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return 0
    fi
    if [[ "$cur" == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${_torcrun_options[$cmd]}" -- "$cur")
        return 0
    fi
    if [ "$COMP_CWORD" -eq 2 ] && [ -n "${_torcrun_subcommands[$cmd]}" ]; then
        mapfile -t COMPREPLY < <(compgen -W "${_torcrun_subcommands[$cmd]}" -- "$cur")
        [ ${#COMPREPLY[@]} -gt 0 ] && return 0
    fi
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    return 0
}
complete -F _torcrun torcrun
)";
    return s.str();
}

}  // namespace torcrun::apps
