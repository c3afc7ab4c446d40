// A server_api over a private in-memory store, with a fixed clock, and helpers to call it with
// api::request values and to check response shapes against the model tables (which
// api_models tests against the contract).
#pragma once

#include "torcrun/server/model_json.hpp"
#include "torcrun/server/io/server_api.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

namespace torcrun::test {

using query = std::vector<std::pair<std::string, std::string>>;

inline io::server_options fixed_clock()
{
    io::server_options options;
    // 2026-01-19T22:41:30.123Z
    options.clock = [] {
        return std::chrono::system_clock::time_point(std::chrono::milliseconds(1768862490123));
    };
    return options;
}

struct api_fixture {
    io::store db = io::store::open(":memory:").value();
    io::server_api server{db, fixed_clock()};
    std::vector<std::int64_t> notified;

    api_fixture()
    {
        server.set_change_listener([this](std::int64_t id) { notified.push_back(id); });
    }

    api::response call(std::string method, std::string path, std::string body = {}, query q = {})
    {
        api::request req;
        req.method = std::move(method);
        req.path = std::move(path);
        req.body = std::move(body);
        for (auto& [k, v] : q) req.query.emplace(k, v);
        auto out = server.handle(req);
        BOOST_REQUIRE(std::holds_alternative<api::response>(out));
        return std::get<api::response>(out);
    }

    // The parsed body of a 200 answer (the test fails on any other status).
    boost::json::value ok(std::string method, std::string path, std::string body = {}, query q = {})
    {
        auto res = call(method, path, std::move(body), std::move(q));
        BOOST_TEST_REQUIRE(res.status == 200u, method << " " << path << ": " << res.body);
        return boost::json::parse(res.body);
    }

    // The message of an error answer, after checking its status and body shape.
    std::string fails(unsigned status, std::string method, std::string path, std::string body = {},
                      query q = {})
    {
        auto res = call(method, path, std::move(body), std::move(q));
        BOOST_TEST(res.status == status, method << " " << path << ": " << res.body);
        auto json = boost::json::parse(res.body).as_object();
        auto const message = std::string(json.at("message").as_string());
        BOOST_TEST(json.at("error").as_object().at("message").as_string() == message);
        return message;
    }

    std::int64_t workflow(std::string name = "w")
    {
        auto w = ok("POST", "/workflows", R"({"name":")" + name + R"(","user":"me"})");
        return w.at("id").as_int64();
    }

    std::int64_t count(std::string const& table)
    {
        auto stmt = db.db().prepare("SELECT COUNT(*) FROM " + table).value();
        (void)stmt.step().value();
        return stmt.int64(0);
    }
};

// Every key is a field of `model` and has the field's JSON type.
inline void check_shape(api::model_spec const& model, boost::json::value const& v)
{
    BOOST_TEST_REQUIRE(v.is_object());
    for (auto const& kv : v.as_object()) {
        auto const* f = model.find(kv.key());
        BOOST_TEST_REQUIRE(f != nullptr, model.name << " has no field " << kv.key());
        auto const& x = kv.value();
        bool fits = false;
        switch (f->kind) {
        case api::field_kind::integer:
            fits = x.is_int64();
            break;
        case api::field_kind::number:
            fits = x.is_number();
            break;
        case api::field_kind::boolean:
            fits = x.is_bool();
            break;
        case api::field_kind::json_object:
        case api::field_kind::env_map:
            fits = x.is_object();
            break;
        case api::field_kind::json_config:  // as it was sent
        case api::field_kind::json_document:
        case api::field_kind::string_or_object:
            fits = x.is_string() || x.is_object();
            break;
        case api::field_kind::json_any:
            fits = !x.is_null();
            break;
        case api::field_kind::ids:
            fits = x.is_array();
            break;
        case api::field_kind::job_status:
            fits = x.is_string() && api::job_status_code(x.as_string()).has_value();
            break;
        case api::field_kind::string:
        case api::field_kind::json_text:
            fits = x.is_string();
            break;
        }
        BOOST_TEST(fits, model.name << "." << kv.key() << " has the wrong type");
    }
}

// A list envelope of `model` items, checked item by item.
inline void check_list(api::model_spec const& model, boost::json::value const& v)
{
    auto const& o = v.as_object();
    for (auto key : {"items", "offset", "max_limit", "count", "total_count", "has_more"}) {
        BOOST_TEST_REQUIRE(o.contains(key), "envelope without " << key);
    }
    BOOST_TEST(o.size() == 6u);
    BOOST_TEST(o.at("max_limit").as_int64() == 10000);
    BOOST_TEST(o.at("count").as_int64() ==
               static_cast<std::int64_t>(o.at("items").as_array().size()));
    for (auto const& item : o.at("items").as_array()) check_shape(model, item);
}

}  // namespace torcrun::test
