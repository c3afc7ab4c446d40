// See run_directory.hpp.
#include "run_directory.hpp"

#include "config_options.hpp"
#include "torcrun/common/io/http_url.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace torcrun::apps {

namespace fs = std::filesystem;

// A URL file left by a run that was killed names nothing, or a port some other program took
// since; either way it is not a live server.
std::optional<io::client_settings> live_run_server(std::string const& dir)
{
    auto text = read_text_file(dir + "/" + run_url_name);
    if (!text) return std::nullopt;
    auto const end = text->find_first_of("\r\n");
    auto base = io::parse_base_url(text->substr(0, end));
    if (!base) return std::nullopt;
    io::client_settings settings;
    settings.server = std::move(*base);
    settings.timeout = std::chrono::milliseconds(1000);
    io::blocking_http_client probe(settings);
    auto reply = probe.request("GET", "/ping");
    if (!reply || reply->body.find("ok") == std::string::npos) return std::nullopt;
    settings.timeout = io::client_settings{}.timeout;
    return settings;
}

core::result<client_target> open_run_directory(std::string const& dir)
{
    if (auto live = live_run_server(dir)) return client_target{std::move(*live), nullptr};
    auto const database = dir + "/" + run_database_name;
    std::error_code ec;
    if (!fs::is_regular_file(database, ec))
        return core::error{"--output-dir " + dir + ": no torcrun run here (" + database +
                           " does not exist)"};
    // The server's own log lines would only repeat the command's answers.
    auto server = embedded_server::start(database, io::logger{io::log_level::err, {}});
    if (!server) return core::error{"--output-dir " + dir + ": " + server.error().message};
    client_target out;
    out.settings.server = *io::parse_base_url((*server)->url());
    out.local = std::move(*server);
    return out;
}

core::result<void> write_whole_file(std::string const& path, std::string const& text)
{
    auto const part = path + ".part";
    {
        std::ofstream out(part, std::ios::trunc | std::ios::binary);
        out << text;
        out.close();
        if (!out) return core::error{path + ": cannot write: " + std::strerror(errno)};
    }
    std::error_code ec;
    fs::rename(part, path, ec);
    if (ec) return core::error{path + ": cannot write: " + ec.message()};
    return {};
}

core::result<void> write_url_file(std::string const& dir, std::string const& url)
{
    return write_whole_file(dir + "/" + run_url_name, url + "\n");
}

void remove_url_file(std::string const& dir)
{
    std::error_code ignored;
    fs::remove(dir + "/" + run_url_name, ignored);
}

}  // namespace torcrun::apps
