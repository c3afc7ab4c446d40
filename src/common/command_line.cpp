// command.txt's text: an argv shown as one shell line that a person can read and paste back.
// The launcher never goes through it; it execs the argv vector itself.
#include "torcrun/common/command_line.hpp"

#include <algorithm>

namespace torcrun::core {

namespace {

bool is_plain(char c)
{
    auto const u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9')) return true;
    return std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

std::string single_quoted(std::string_view word)
{
    std::string out = "'";
    for (char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

}  // namespace

std::string shell_quote(std::string_view word)
{
    if (!word.empty() && std::ranges::all_of(word, is_plain)) return std::string(word);
    return single_quoted(word);
}

std::string render_command_line(std::vector<std::string> const& argv)
{
    std::string out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (i > 0) out += ' ';
        bool const assignment_like = i == 0 && argv[i].find('=') != std::string::npos;
        out += assignment_like ? single_quoted(argv[i]) : shell_quote(argv[i]);
    }
    return out;
}

}  // namespace torcrun::core
