// `torcrun completion bash`: the bash completion script, built from what each command's --help
// prints (each command run in this process with its output captured), so the completion
// offers exactly the options the commands accept.
#include "torcrun/cli/command_table.hpp"
#include "torcrun/cli/completion_script.hpp"

#include <iostream>
#include <sstream>
#include <vector>

namespace torcrun::apps {

namespace {

constexpr char const* usage =
    "usage: torcrun completion bash\n"
    "\n"
    "Prints the bash completion script: commands, subcommands, each command's options and\n"
    "their choices, file names elsewhere.\n"
    "  source <(torcrun completion bash)                      # this shell\n"
    "  torcrun completion bash > ~/.local/share/bash-completion/completions/torcrun\n"
    "\n"
    "options:\n"
    "  -h [ --help ]         print this help\n";

// Standard output and error sent into one string while it lives.
class captured_output {
public:
    captured_output()
        : out_(std::cout.rdbuf(text_.rdbuf())), err_(std::cerr.rdbuf(text_.rdbuf()))
    {
    }
    ~captured_output()
    {
        std::cout.rdbuf(out_);
        std::cerr.rdbuf(err_);
    }
    captured_output(captured_output const&) = delete;
    captured_output& operator=(captured_output const&) = delete;
    std::string text() const { return text_.str(); }

private:
    std::ostringstream text_;
    std::streambuf* out_;
    std::streambuf* err_;
};

// What `torcrun NAME [SUB] --help` prints.
std::string help_of(subcommand const& command, arguments args)
{
    if (command.run == cmd_completion) return usage;
    args.push_back("--help");
    captured_output capture;
    try {
        command.run(args);
    } catch (std::exception const&) {
        // A command whose help throws still gets its name completed.
    }
    return capture.text();
}

}  // namespace

int cmd_completion(arguments const& args)
{
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
        std::cout << usage;
        return 0;
    }
    if (args.size() != 1 || args[0] != "bash") {
        std::cerr << "torcrun completion: "
                  << (args.empty() ? std::string("name the shell")
                                   : "unsupported shell or argument '" + args[0] + "'")
                  << " (torcrun completion bash)\n";
        return 2;
    }
    std::vector<command_words> commands;
    for (auto const& command : subcommands()) {
        auto words = read_help(command.name, help_of(command, {}));
        // `config worker --help` lists the worker's flags, `workflows sync-status --help` its own.
        for (auto const& sub : words.subcommands) {
            auto sub_words = read_help(command.name, help_of(command, {sub}));
            sub_words.name = std::string(command.name) + " " + sub;
            sub_words.subcommands.clear();
            commands.push_back(std::move(sub_words));
        }
        commands.push_back(std::move(words));
    }
    std::cout << bash_completion_script(commands);
    return 0;
}

}  // namespace torcrun::apps
