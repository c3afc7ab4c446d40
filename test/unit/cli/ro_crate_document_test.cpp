// ro-crate-metadata.json from entity records (ro_crate_document.hpp): RO-Crate 1.1's required
// parts (context, metadata descriptor, root data entity with name, description, datePublished),
// hasPart and mentions, @id/@type filled from the record, sha256 added, duplicates replaced.
#include "torcrun/cli/ro_crate_document.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

namespace apps = torcrun::apps;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(ro_crate_document)

apps::crate_input sample()
{
    apps::crate_input in;
    in.workflow_id = 7;
    in.name = "demo";
    in.date_published = "2026-01-01T00:00:00Z";
    in.entities = {
        {"in.csv", "File", json::parse(R"({"name":"in.csv"})").as_object()},
        {"#job-1-attempt-1", "CreateAction",
         json::parse(R"({"@id":"#job-1-attempt-1","@type":"CreateAction","name":"a",)"
                     R"("instrument":{"@id":"#workflow-7"},"result":[{"@id":"out.json"}]})")
             .as_object()},
        {"out.json", "File",
         json::parse(R"({"@id":"out.json","@type":"File","wasGeneratedBy":{"@id":"#job-1-attempt-1"}})")
             .as_object()},
    };
    in.file_sha256["out.json"] = "ab";
    return in;
}

json::object by_id(json::object const& doc, std::string_view id)
{
    for (auto const& e : doc.at("@graph").as_array())
        if (e.as_object().at("@id").as_string() == id) return e.as_object();
    BOOST_FAIL("no entity " << id);
    return {};
}

BOOST_AUTO_TEST_CASE(required_parts_of_ro_crate_1_1)
{
    auto const doc = apps::ro_crate_document(sample());
    BOOST_TEST(doc.at("@context").as_string() == "https://w3id.org/ro/crate/1.1/context");
    auto const desc = by_id(doc, "ro-crate-metadata.json");
    BOOST_TEST(desc.at("@type").as_string() == "CreativeWork");
    BOOST_TEST(json::serialize(desc.at("about")) == R"({"@id":"./"})");
    BOOST_TEST(json::serialize(desc.at("conformsTo")) == R"({"@id":"https://w3id.org/ro/crate/1.1"})");
    auto const root = by_id(doc, "./");
    BOOST_TEST(root.at("@type").as_string() == "Dataset");
    BOOST_TEST(root.at("name").as_string() == "demo");
    BOOST_TEST(root.at("description").as_string() == "Torc workflow demo");
    BOOST_TEST(root.at("datePublished").as_string() == "2026-01-01T00:00:00Z");
    BOOST_TEST(json::serialize(root.at("hasPart")) == R"([{"@id":"in.csv"},{"@id":"out.json"}])");
    BOOST_TEST(json::serialize(root.at("mentions")) == R"([{"@id":"#job-1-attempt-1"}])");
    BOOST_TEST(by_id(doc, "#workflow-7").at("@type").as_string() == "SoftwareApplication");
}

BOOST_AUTO_TEST_CASE(records_get_their_id_type_and_hash)
{
    auto const doc = apps::ro_crate_document(sample());
    auto const in = by_id(doc, "in.csv");
    BOOST_TEST(in.at("@type").as_string() == "File");
    BOOST_TEST(!in.contains("sha256"));
    BOOST_TEST(by_id(doc, "out.json").at("sha256").as_string() == "ab");
    BOOST_TEST(doc.at("@graph").as_array().size() == 6u);
}

BOOST_AUTO_TEST_CASE(a_later_record_replaces_one_with_the_same_id)
{
    auto in = sample();
    in.entities.push_back(
        {"in.csv", "File", json::parse(R"({"name":"again","contentSize":3})").as_object()});
    in.entities.push_back({"#workflow-7", "ComputationalWorkflow", {}});
    auto const doc = apps::ro_crate_document(in);
    BOOST_TEST(by_id(doc, "in.csv").at("name").as_string() == "again");
    BOOST_TEST(by_id(doc, "#workflow-7").at("@type").as_string() == "ComputationalWorkflow");
    BOOST_TEST(doc.at("@graph").as_array().size() == 6u);
}

BOOST_AUTO_TEST_SUITE_END()
