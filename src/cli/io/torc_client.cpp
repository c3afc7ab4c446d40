// Flags, settings and calls of the CLI's REST client. Reads the environment (TORC_API_URL,
// TORC_PASSWORD, TORC_TLS_CA_CERT) as Torc's own client does.
#include "torc_client.hpp"

#include "cli/positional_command.hpp"
#include "config_options.hpp"
#include "run_directory.hpp"
#include "torcrun/common/server_message.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <cstdlib>
#include <thread>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

// The first line of the file, without its line end.
core::result<std::string> read_password(std::string const& path)
{
    auto text = read_text_file(path);
    if (!text) return text.error();
    auto const end = text->find_first_of("\r\n");
    return core::result<std::string>(boost::system::in_place_value, text->substr(0, end));
}

std::string upper_case(std::string text)
{
    for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

std::string failure_message(std::string const& method, std::string const& path,
                            io::http_error const& e, std::string const& url)
{
    if (e.kind == io::http_error_kind::connect_refused || e.kind == io::http_error_kind::dns)
        return e.message + " (is the server running at " + url +
               "? start one with `torcrun server`, or give --url URL)";
    if (e.kind != io::http_error_kind::http_4xx && e.kind != io::http_error_kind::http_5xx)
        return e.message;
    return method + " " + path + ": HTTP " + std::to_string(e.status) + ": " +
           api::server_message(e.body);
}

po::options_description client_options()
{
    po::options_description options("server");
    options.add_options()("url", po::value<std::string>()->value_name("URL"),
                          "server API base URL (default: $TORC_API_URL, else "
                          "http://127.0.0.1:8080/torc-service/v1)")(
        "user", po::value<std::string>()->value_name("NAME"), "HTTP Basic auth user")(
        "password-file", po::value<std::string>()->value_name("FILE"),
        "file whose first line is the password (default: $TORC_PASSWORD)")(
        "tls-ca-cert", po::value<std::string>()->value_name("FILE"),
        "PEM file of the CAs trusted for an https URL (default: $TORC_TLS_CA_CERT, else the "
        "system's store)");
    return options;
}

core::result<io::client_settings> client_settings_from(po::variables_map const& flags)
{
    std::string url = default_api_url;
    if (flags.count("url")) {
        url = flags["url"].as<std::string>();
    } else if (auto from_env = environment_value("TORC_API_URL")) {
        url = *from_env;
    }
    auto base = io::parse_base_url(url);
    if (!base) return core::error{"--url: " + base.error().message + "; expected " + url_form};
    io::client_settings settings;
    settings.server = std::move(*base);
    if (flags.count("tls-ca-cert")) {
        settings.tls_ca_file = flags["tls-ca-cert"].as<std::string>();
    } else if (auto from_env = environment_value("TORC_TLS_CA_CERT")) {
        settings.tls_ca_file = std::move(*from_env);
    }
    if (settings.server.tls) {
        auto trust = io::load_client_tls(settings.tls_ca_file, flags.count("tls-ca-cert")
                                                                   ? "--tls-ca-cert"
                                                                   : "TORC_TLS_CA_CERT");
        if (!trust) return trust.error();
        settings.tls = std::move(*trust);
    }
    if (!flags.count("user")) return settings;
    settings.user = flags["user"].as<std::string>();
    if (flags.count("password-file")) {
        auto password = read_password(flags["password-file"].as<std::string>());
        if (!password) return password.error();
        settings.password = std::move(*password);
    } else if (auto from_env = environment_value("TORC_PASSWORD")) {
        settings.password = std::move(*from_env);
    } else {
        return core::error{"--user: needs a password (--password-file FILE or TORC_PASSWORD)"};
    }
    return settings;
}

core::result<std::string> torc_client::send(std::string const& method, std::string const& path,
                                            std::string body)
{
    auto reply = http_.request(method, path, std::move(body));
    if (!reply) return core::error{failure_message(method, path, reply.error(), url_)};
    return core::result<std::string>(boost::system::in_place_value, std::move(reply->body));
}

core::result<json::value> torc_client::call(std::string const& method, std::string const& path,
                                            std::string body)
{
    auto text = send(method, path, std::move(body));
    if (!text) return text.error();
    if (text->empty()) return json::value(nullptr);
    boost::system::error_code ec;
    auto value = json::parse(*text, ec);
    if (ec) return core::error{method + " " + path + ": the answer is not JSON: " + ec.message()};
    return value;
}

core::result<std::vector<json::value>> torc_client::workflow_jobs(std::int64_t wf)
{
    auto const w = std::to_string(wf);
    if (auto workflow = call("GET", "/workflows/" + w); !workflow) return workflow.error();
    return list_all("/jobs?workflow_id=" + w);
}

core::result<std::vector<json::value>> torc_client::list_all(std::string const& path,
                                                             std::int64_t page_size)
{
    std::vector<json::value> items;
    char const separator = path.find('?') == std::string::npos ? '?' : '&';
    for (std::int64_t offset = 0;;) {
        auto const page_path = path + separator + "offset=" + std::to_string(offset) +
                               "&limit=" + std::to_string(page_size);
        auto page = call("GET", page_path);
        if (!page) return page.error();
        auto const* o = page->if_object();
        auto const* list = o ? o->if_contains("items") : nullptr;
        if (!list || !list->is_array())
            return core::error{"GET " + page_path + ": the answer has no \"items\" array"};
        for (auto const& item : list->as_array()) items.push_back(item);
        auto const* more = o->if_contains("has_more");
        if (list->as_array().empty() || !more || !more->is_bool() || !more->as_bool()) break;
        offset += static_cast<std::int64_t>(list->as_array().size());
    }
    return items;
}

core::result<std::int64_t> parse_workflow_id(std::string const& text)
{
    std::int64_t id = 0;
    auto const* end = text.data() + text.size();
    auto const [ptr, ec] = std::from_chars(text.data(), end, id);
    if (text.empty() || ec != std::errc{} || ptr != end || id <= 0)
        return core::error{"workflow: \"" + text + "\" is not a workflow id"};
    return id;
}

po::options_description output_dir_option()
{
    po::options_description options("a finished torcrun run");
    options.add_options()("output-dir", po::value<std::string>()->value_name("DIR"),
                          "the output directory of a torcrun run: its server while it runs, "
                          "else its database (instead of --url)");
    return options;
}

po::options_description worker_output_dir_option()
{
    po::options_description options("job files");
    options.add_options()("worker-output-dir", po::value<std::string>()->value_name("DIR"),
                          "the output directory of the worker that ran the jobs (default: "
                          "--output-dir, else the one each worker recorded, else torc_output)");
    return options;
}

core::result<client_target> client_target_from(po::variables_map const& flags)
{
    if (!flags.count("output-dir")) {
        auto settings = client_settings_from(flags);
        if (!settings) return settings.error();
        return client_target{std::move(*settings), nullptr};
    }
    if (flags.count("url"))
        return core::error{"--url and --output-dir: give one (the output directory names its "
                           "own server)"};
    return open_run_directory(flags["output-dir"].as<std::string>());
}

std::variant<workflow_command, int> parse_workflow_command(
    std::vector<std::string> const& args, po::options_description options,
    std::string const& name, std::string const& second)
{
    auto const fail = [&](std::string const& message) {
        std::cerr << "torcrun " << name << ": " << message << "\n";
        return 2;
    };
    options.add(client_options()).add(output_dir_option());
    std::string const synopsis = second.empty() ? "WF" : "WF " + upper_case(second);
    positional_command shape{name, "workflow", synopsis,
                             "usage: torcrun " + name + " " + synopsis + " [options]\n",
                             "a workflow id is required (torcrun " + name + " " + synopsis + ")"};
    if (!second.empty()) {
        shape.second = second;
        shape.second_missing =
            "a " + second + " is required (torcrun " + name + " " + synopsis + ")";
    }
    auto parsed = parse_positional_command(args, options, shape);
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    workflow_command command;
    command.flags = std::move(std::get<po::variables_map>(parsed));
    auto wf = parse_workflow_id(command.flags["workflow"].as<std::string>());
    if (!wf) return fail(wf.error().message);
    auto target = client_target_from(command.flags);
    if (!target) return fail(target.error().message);
    command.workflow_id = *wf;
    command.settings = std::move(target->settings);
    command.local_server = std::move(target->local);
    return command;
}

core::result<std::int64_t> torc_client::run_id(std::int64_t wf, json::value const* record)
{
    auto const base = "/workflows/" + std::to_string(wf);
    std::optional<json::value> read;
    if (!record) {
        auto got = call("GET", base);
        if (!got) return got.error();
        read = std::move(*got);
        record = &*read;
    }
    auto const* object = record->if_object();
    if (auto const* v = object ? object->if_contains("run_id") : nullptr; v && v->is_int64())
        return v->get_int64();
    auto status = call("GET", base + "/status");
    if (!status) return status.error();
    auto const* fields = status->if_object();
    auto const* v = fields ? fields->if_contains("run_id") : nullptr;
    if (!v || !v->is_int64())
        return core::error{"GET " + base + "/status: the answer has no integer \"run_id\""};
    return v->get_int64();
}

void pause_before_retry(int attempt, std::chrono::steady_clock::time_point give_up)
{
    auto const seconds = std::min(30.0, std::exp2(std::clamp(attempt - 1, 0, 5)));
    auto const pause = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
    auto const until = std::min(give_up, std::chrono::steady_clock::now() + pause);
    std::this_thread::sleep_until(until);
}

}  // namespace torcrun::apps
