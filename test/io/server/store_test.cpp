// The store on its own: schema versioning, the workflow bundle (status row, `default`
// requirements), generic CRUD with filters/sorting/paging, reference checks, constraint
// failures as 4xx, the cascade from workflow, and the job rules (links, updates, cycles).
#include "torcrun/server/io/store.hpp"

#include "torcrun/server/model_json.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>

namespace api = torcrun::api;
namespace io = torcrun::io;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(store)

api::record decode(api::model_spec const& model, std::string const& body,
                   api::decode_mode mode = api::decode_mode::create)
{
    return api::decode_body(model, body, mode, "t").value();
}

struct store_fixture {
    io::store db = io::store::open(":memory:").value();

    std::int64_t workflow(std::string const& name = "w")
    {
        auto w = db.create_workflow(
            decode(api::workflow_model, R"({"name":")" + name + R"(","user":"u"})"), "T",
            "workflows");
        return *w.value().int64("id");
    }
    std::int64_t add(api::model_spec const& model, std::string const& body)
    {
        auto row = db.insert(model, decode(model, body), "t");
        BOOST_TEST_REQUIRE(row.has_value(), (row ? "" : row.error().message));
        return *row->int64("id");
    }
    std::int64_t job(std::int64_t wf, std::string const& name, std::string const& extra = "")
    {
        auto j = db.create_job(decode(api::job_model, R"({"workflow_id":)" + std::to_string(wf) +
                                                          R"(,"name":")" + name +
                                                          R"(","command":"c")" + extra + "}"),
                               "jobs");
        BOOST_TEST_REQUIRE(j.has_value(), (j ? "" : j.error().message));
        return *j->int64("id");
    }
    std::int64_t scalar(std::string const& sql)
    {
        auto stmt = db.db().prepare(sql).value();
        (void)stmt.step().value();
        return stmt.int64(0);
    }
};

struct temp_dir {
    fs::path path;
    temp_dir()
    {
        std::string pattern = (fs::temp_directory_path() / "torcrun-store-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~temp_dir() { fs::remove_all(path); }
};

// Takes version 15's, 13's, 12's, 11's, 10's and 9's additions back out of a fresh database.
std::string const undo_version_9 = "DROP TABLE job_id_block;"
                                   "DROP TABLE ro_crate_entity;"
                                   "DROP TABLE job_dataset_input; DROP TABLE job_dataset_output;"
                                   "DROP TABLE dataset;"
                                   "ALTER TABLE scheduled_compute_node DROP COLUMN made_for;"
                                   "ALTER TABLE scheduled_compute_node DROP COLUMN shape;"
                                   "ALTER TABLE scheduled_compute_node DROP COLUMN submit_time;"
                                   "ALTER TABLE scheduled_compute_node DROP COLUMN start_time;"
                                   "ALTER TABLE scheduled_compute_node DROP COLUMN end_time;"
                                   "ALTER TABLE scheduled_compute_node DROP COLUMN node;"
                                   "ALTER TABLE scheduled_compute_node DROP COLUMN end_reason;"
                                   "DROP INDEX job_spawned_by;"
                                   "ALTER TABLE job DROP COLUMN spawned_by_job_id;"
                                   "ALTER TABLE job DROP COLUMN origin;"
                                   "ALTER TABLE workflow DROP COLUMN dynamic_jobs;"
                                   "ALTER TABLE job DROP COLUMN label;"
                                   "DROP TABLE task;"
                                   "ALTER TABLE compute_node DROP COLUMN end_time;"
                                   "ALTER TABLE compute_node DROP COLUMN sample_count;"
                                   "ALTER TABLE compute_node DROP COLUMN peak_cpu_percent;"
                                   "ALTER TABLE compute_node DROP COLUMN avg_cpu_percent;"
                                   "ALTER TABLE compute_node DROP COLUMN peak_memory_bytes;"
                                   "ALTER TABLE compute_node DROP COLUMN avg_memory_bytes;"
                                   "ALTER TABLE workflow DROP COLUMN submission_directory;"
                                   "ALTER TABLE workflow DROP COLUMN enable_ro_crate;";

BOOST_AUTO_TEST_CASE(schema_is_versioned)
{
    temp_dir dir;
    auto const path = (dir.path / "w.db").string();
    {
        auto db = io::store::open(path).value();
        auto stmt = db.db().prepare("SELECT group_concat(version) FROM schema_version").value();
        (void)stmt.step().value();
        BOOST_TEST(stmt.text(0) == "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
    }
    {
        auto db = io::store::open(path).value();  // reopening applies nothing twice
        auto stmt = db.db().prepare("SELECT COUNT(*) FROM schema_version").value();
        (void)stmt.step().value();
        BOOST_TEST(stmt.int64(0) == 15);
        BOOST_TEST_REQUIRE(db.db().exec("INSERT INTO schema_version VALUES (99)").has_value());
    }
    auto newer = io::store::open(path);
    BOOST_TEST_REQUIRE(newer.has_error());
    BOOST_TEST(newer.error().message ==
               "store: the database has schema version 99, newer than this torcrun knows (15)");
}

// A version-3 database (made here by taking the additions of versions 4, 5, 7, 8, 9 and 10 back
// out of a fresh one, and putting back the index version 6 drops) with a workflow and a job in it:
// opening it applies versions 4 to 10, the rows read with newer Torc's defaults, the new fields
// can be written, and the built-in admin group exists.
BOOST_AUTO_TEST_CASE(version_3_databases_are_migrated_in_place)
{
    temp_dir dir;
    auto const path = (dir.path / "w.db").string();
    {
        (void)io::store::open(path).value();  // the current schema; the store's triggers go
        auto db = io::sqlite::connection::open(path).value();  // with it, so columns can drop
        std::string const to_version_3 =
            "DROP INDEX IF EXISTS job_claim; DROP INDEX IF EXISTS job_next;"
            "ALTER TABLE job DROP COLUMN priority; ALTER TABLE job DROP COLUMN env;"
            "ALTER TABLE workflow DROP COLUMN project; ALTER TABLE workflow DROP COLUMN metadata;"
            "ALTER TABLE workflow DROP COLUMN env;"
            "ALTER TABLE workflow DROP COLUMN execution_config;"
            "ALTER TABLE slurm_scheduler DROP COLUMN serialize_allocations;"
            "CREATE INDEX job_claim ON job(workflow_id, status, resource_requirements_id, "
            "scheduler_id);"
            "DROP TABLE claim_key;"
            "CREATE INDEX IF NOT EXISTS job_workflow_status ON job(workflow_id, status);"
            "DROP TABLE workflow_access_group; DROP TABLE user_group_membership;"
            "DROP TABLE access_group; DROP INDEX workflow_user;"
            "DROP TABLE job_retry;" +
            undo_version_9 +
            "DELETE FROM schema_version WHERE version >= 4;"
            "INSERT INTO workflow (name, user, timestamp) VALUES ('w', 'u', 't');"
            "INSERT INTO job (workflow_id, name, command) VALUES (1, 'a', 'c');";
        BOOST_TEST_REQUIRE(db.exec(to_version_3).has_value());
    }
    auto db = io::store::open(path).value();
    auto job = db.get(api::job_model, 1, "jobs").value();
    BOOST_TEST(job.int64("priority").value_or(-1) == 0);
    BOOST_TEST(!job.has_value("env"));
    api::record change;
    change.set("priority", std::int64_t{4});
    auto const updated = db.update(api::job_model, 1, change, "jobs").value();
    BOOST_TEST(updated.int64("priority").value_or(-1) == 4);
    auto stmt = db.db().prepare("SELECT group_concat(version) FROM schema_version").value();
    (void)stmt.step().value();
    BOOST_TEST(stmt.text(0) == "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
    // v14: one narrow status index; the claims' wide ones gave way to the ready index.
    auto index = db.db()
                     .prepare("SELECT group_concat(name) FROM sqlite_master WHERE name IN "
                              "('job_workflow_status', 'job_claim', 'job_next')")
                     .value();
    (void)index.step().value();
    BOOST_TEST(index.text(0) == "job_workflow_status");
    auto admin = db.db().prepare("SELECT name, is_system FROM access_group").value();
    BOOST_TEST_REQUIRE(admin.step().value());
    BOOST_TEST(admin.text(0) == "admin");
    BOOST_TEST(admin.int64(1) == 1);
    BOOST_TEST(!admin.step().value());
    BOOST_TEST(db.db().exec("SELECT COUNT(*) FROM job_retry").has_value());
}

// A version-8 database held the configuration fields as a string's content (or an object's
// text) and answered them as strings: after version 9 they still answer as those strings, while
// a new row answers in the form it was sent, and a task can be recorded.
BOOST_AUTO_TEST_CASE(version_8_configuration_fields_keep_their_string_form)
{
    temp_dir dir;
    auto const path = (dir.path / "w.db").string();
    {
        (void)io::store::open(path).value();  // the current schema; the store's triggers go
        auto db = io::sqlite::connection::open(path).value();  // with it, so columns can drop
        auto const to_version_8 =
            undo_version_9 +
            "DELETE FROM schema_version WHERE version >= 9;"
            "INSERT INTO workflow (name, user, timestamp, slurm_defaults, resource_monitor_config) "
            "VALUES ('w', 'u', 't', '{\"qos\":\"high\"}', '{\"jobs\": {\"enabled\": true}}');"
            "INSERT INTO workflow_status (id) VALUES (1);";
        BOOST_TEST_REQUIRE(db.exec(to_version_8).has_value());
    }
    auto db = io::store::open(path).value();
    auto const old = db.get(api::workflow_model, 1, "workflows").value();
    BOOST_TEST(api::encode(api::workflow_model, old).find(
                   R"("resource_monitor_config":"{\"jobs\": {\"enabled\": true}}",)"
                   R"("slurm_defaults":"{\"qos\":\"high\"}")") != std::string::npos);
    auto const fresh = db.create_workflow(decode(api::workflow_model,
                                                 R"({"name":"n","user":"u",)"
                                                 R"("slurm_defaults":{"qos":"low"}})"),
                                          "T", "workflows")
                           .value();
    BOOST_TEST(*fresh.text("slurm_defaults") == R"({"qos":"low"})");
    BOOST_TEST(db.db().exec("SELECT COUNT(*) FROM task").has_value());
}

BOOST_AUTO_TEST_CASE(open_failure_is_a_message)
{
    auto db = io::store::open("/nonexistent/dir/w.db");
    BOOST_TEST_REQUIRE(db.has_error());
    BOOST_TEST(db.error().message ==
               "store: sqlite: unable to open database file (opening \"/nonexistent/dir/w.db\")");
}

BOOST_FIXTURE_TEST_CASE(a_workflow_comes_with_status_and_default_requirements, store_fixture)
{
    auto const wf = workflow();
    auto row = db.get(api::workflow_model, wf, "workflows").value();
    BOOST_TEST(*row.int64("status_id") == wf);
    BOOST_TEST(*row.text("timestamp") == "T");
    BOOST_TEST(scalar("SELECT run_id FROM workflow_status WHERE id = " + std::to_string(wf)) == 0);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM resource_requirements WHERE name = 'default' AND "
                      "num_cpus = 1 AND num_gpus = 0 AND num_nodes = 1 AND memory = '1m' AND "
                      "runtime = 'P0DT1M' AND memory_bytes = 1048576 AND runtime_s = 60") == 1);
    auto second = workflow("v");
    BOOST_TEST(second == wf + 1);
}

BOOST_FIXTURE_TEST_CASE(generic_crud, store_fixture)
{
    auto const wf = workflow();
    auto const a = add(api::file_model, R"({"workflow_id":1,"name":"a","path":"/x"})");
    add(api::file_model, R"({"workflow_id":1,"name":"b","path":"/x"})");
    add(api::file_model, R"({"workflow_id":1,"name":"c","path":"/y","st_mtime":5.5})");

    io::list_query q;
    q.where.push_back({"workflow_id = ?", wf});
    q.where.push_back({"path = ?", std::string("/x")});
    q.page.sort_by = "name";
    q.page.reverse_sort = true;
    auto page = db.list(api::file_model, q, "files").value();
    BOOST_TEST(page.total_count == 2);
    BOOST_TEST_REQUIRE(page.items.size() == 2u);
    BOOST_TEST(*page.items[0].text("name") == "b");

    q.where.pop_back();
    q.page = {};
    q.page.offset = 1;
    q.page.limit = 1;
    page = db.list(api::file_model, q, "files").value();
    BOOST_TEST(page.total_count == 3);
    BOOST_TEST_REQUIRE(page.items.size() == 1u);
    BOOST_TEST(*page.items[0].text("name") == "b");

    auto updated = db.update(api::file_model, a,
                             decode(api::file_model,
                                    R"({"workflow_id":1,"name":"a2","path":"/x","st_mtime":7})",
                                    api::decode_mode::update),
                             "files")
                       .value();
    BOOST_TEST(*updated.text("name") == "a2");
    BOOST_TEST(std::get<double>(*updated.find("st_mtime")) == 7.0);

    auto removed = db.remove(api::file_model, a, "files").value();
    BOOST_TEST(*removed.text("name") == "a2");
    auto gone = db.get(api::file_model, a, "files");
    BOOST_TEST_REQUIRE(gone.has_error());
    BOOST_TEST(gone.error().status == 404u);
    BOOST_TEST(gone.error().message == "files: no file with id 1");
    BOOST_TEST(db.remove_all(api::file_model, wf, "files").value() == 2);
}

BOOST_FIXTURE_TEST_CASE(references_are_checked, store_fixture)
{
    workflow();
    workflow("other");
    auto missing =
        db.insert(api::file_model,
                  decode(api::file_model, R"({"workflow_id":9,"name":"a","path":"/x"})"), "files");
    BOOST_TEST_REQUIRE(missing.has_error());
    BOOST_TEST(missing.error().status == 404u);
    BOOST_TEST(missing.error().message == R"(files: field "workflow_id": no workflow with id 9)");

    auto const other_file = add(api::file_model, R"({"workflow_id":2,"name":"a","path":"/x"})");
    auto cross = db.create_job(
        decode(api::job_model, R"({"workflow_id":1,"name":"j","command":"c","input_file_ids":[)" +
                                   std::to_string(other_file) + "]}"),
        "jobs");
    BOOST_TEST_REQUIRE(cross.has_error());
    BOOST_TEST(cross.error().status == 422u);
    BOOST_TEST(cross.error().message ==
               R"(jobs: field "input_file_ids": file 1 belongs to workflow 2, not 1)");

    auto absent = db.create_job(
        decode(api::job_model,
               R"({"workflow_id":1,"name":"j","command":"c","resource_requirements_id":77})"),
        "jobs");
    BOOST_TEST_REQUIRE(absent.has_error());
    BOOST_TEST(absent.error().message ==
               R"(jobs: field "resource_requirements_id": no resource_requirements with id 77)");

    auto moved = db.update(api::file_model, other_file,
                           decode(api::file_model, R"({"workflow_id":1,"name":"a","path":"/x"})",
                                  api::decode_mode::update),
                           "files");
    BOOST_TEST_REQUIRE(moved.has_error());
    BOOST_TEST(moved.error().message ==
               R"(files: field "workflow_id": cannot move file 1 from workflow 2 to workflow 1)");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job") == 0);
}

BOOST_FIXTURE_TEST_CASE(constraint_failures_are_client_errors, store_fixture)
{
    workflow();
    auto dup =
        db.insert(api::resource_requirements_model,
                  decode(api::resource_requirements_model, R"({"workflow_id":1,"name":"default"})"),
                  "resource_requirements");
    BOOST_TEST_REQUIRE(dup.has_error());
    BOOST_TEST(dup.error().status == 422u);
    BOOST_TEST(dup.error().message ==
               R"(resource_requirements: field "name": "default" already exists in workflow 1)");

    auto const rr =
        add(api::resource_requirements_model, R"({"workflow_id":1,"name":"big","memory":"2g"})");
    job(1, "j", R"(,"resource_requirements_id":)" + std::to_string(rr));
    auto in_use = db.remove(api::resource_requirements_model, rr, "resource_requirements");
    BOOST_TEST_REQUIRE(in_use.has_error());
    BOOST_TEST(in_use.error().status == 409u);
    BOOST_TEST(in_use.error().message ==
               "resource_requirements: other records still refer to it (sqlite: FOREIGN KEY "
               "constraint failed [DELETE FROM resource_requirements WHERE id = ?])");
    BOOST_TEST(scalar("SELECT memory_bytes FROM resource_requirements WHERE name = 'big'") ==
               2LL << 30);
}

BOOST_FIXTURE_TEST_CASE(deleting_a_workflow_cascades_everywhere, store_fixture)
{
    auto const wf = workflow();
    auto const keep = workflow("keep");
    auto const f = add(api::file_model, R"({"workflow_id":1,"name":"f","path":"/x"})");
    auto const d = add(api::user_data_model, R"({"workflow_id":1,"name":"d","data":{"k":1}})");
    add(api::failure_handler_model, R"({"workflow_id":1,"name":"h","rules":"[]"})");
    add(api::slurm_scheduler_model,
        R"({"workflow_id":1,"account":"a","nodes":1,"walltime":"01:00:00"})");
    add(api::local_scheduler_model, R"({"workflow_id":1})");
    auto const cn = add(
        api::compute_node_model,
        R"({"workflow_id":1,"hostname":"h","pid":1,"start_time":"t","num_cpus":1,"memory_gb":1,"num_gpus":0,"num_nodes":1,"compute_node_type":"local"})");
    add(api::scheduled_compute_nodes_model,
        R"({"workflow_id":1,"scheduler_id":5,"scheduler_config_id":1,"scheduler_type":"slurm","status":"pending"})");
    add(api::event_model, R"({"workflow_id":1,"timestamp":1,"data":{}})");
    auto const a = job(wf, "a",
                       R"(,"output_file_ids":[)" + std::to_string(f) +
                           R"(],"output_user_data_ids":[)" + std::to_string(d) + "]");
    auto const b =
        job(wf, "b",
            R"(,"depends_on_job_ids":[)" + std::to_string(a) + R"(],"input_file_ids":[)" +
                std::to_string(f) + R"(],"input_user_data_ids":[)" + std::to_string(d) + "]");
    add(api::result_model,
        R"({"workflow_id":1,"job_id":)" + std::to_string(b) + R"(,"run_id":1,"compute_node_id":)" +
            std::to_string(cn) +
            R"(,"return_code":0,"exec_time_minutes":1,"completion_time":"t","status":"completed"})");
    add(api::workflow_action_model,
        R"({"workflow_id":1,"trigger_type":"on_workflow_start","action_type":"run_commands","action_config":{"commands":["x"]}})");
    job(keep, "k");

    BOOST_TEST_REQUIRE(db.remove(api::workflow_model, wf, "workflows").has_value());
    for (auto table :
         {"workflow_status", "resource_requirements", "failure_handler", "job", "file", "user_data",
          "job_depends_on", "job_input_file", "job_output_file", "job_input_user_data",
          "job_output_user_data", "slurm_scheduler", "local_scheduler", "compute_node",
          "scheduled_compute_node", "result", "workflow_result", "event", "workflow_action"}) {
        auto const left =
            scalar("SELECT COUNT(*) FROM " + std::string(table) +
                   (std::string(table) == "workflow_status"  ? " WHERE id = 1"
                    : std::string(table).starts_with("job_") ? " WHERE job_id IN (1, 2)"
                                                             : " WHERE workflow_id = 1"));
        BOOST_TEST(left == 0, table << " keeps " << left << " rows");
    }
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job") == 1);  // the other workflow's job
    BOOST_TEST(scalar("SELECT COUNT(*) FROM resource_requirements") == 1);
}

BOOST_FIXTURE_TEST_CASE(jobs_get_default_requirements_and_ordered_links, store_fixture)
{
    auto const wf = workflow();
    auto const a = job(wf, "a");
    auto const b = job(wf, "b");
    auto const c = job(wf, "c",
                       R"(,"depends_on_job_ids":[)" + std::to_string(b) + "," + std::to_string(a) +
                           "," + std::to_string(b) + "]");
    auto got = db.get_job(c, "jobs").value();
    BOOST_TEST((*got.ids("depends_on_job_ids") == api::id_list{b, a}));
    BOOST_TEST(got.ids("input_file_ids")->empty());
    BOOST_TEST(*got.int64("status") == 0);
    BOOST_TEST(*got.int64("resource_requirements_id") ==
               scalar("SELECT id FROM resource_requirements WHERE name = 'default'"));
    BOOST_TEST((db.job_ids(wf).value() == api::id_list{a, b, c}));
    BOOST_TEST(db.job_ids(99).value().empty());
}

// get_jobs (a claim's answer) reads each job as get_job does, across its chunks of 32 ids per
// statement, in the order asked, an id asked twice included; a missing one is get_job's 404.
BOOST_FIXTURE_TEST_CASE(jobs_read_together_read_as_one_by_one, store_fixture)
{
    auto const wf = workflow();
    auto const file = add(api::file_model, R"({"workflow_id":)" + std::to_string(wf) +
                                               R"(,"name":"f","path":"p"})");
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 70; ++i) {
        std::string extra;
        if (i >= 2) {  // blockers in an order that is not the rowid's, a file on some
            extra = R"(,"depends_on_job_ids":[)" + std::to_string(ids[i - 1]) + "," +
                    std::to_string(ids[i - 2]) + "]";
        }
        if (i % 3 == 0) extra += R"(,"input_file_ids":[)" + std::to_string(file) + "]";
        ids.push_back(job(wf, "j" + std::to_string(i), extra));
    }
    std::vector<std::int64_t> asked(ids.rbegin(), ids.rend());
    asked.insert(asked.begin() + 40, ids[5]);  // twice, in another chunk than its first
    auto const got = db.get_jobs(asked, "claim").value();
    BOOST_TEST_REQUIRE(got.size() == asked.size());
    for (std::size_t i = 0; i < asked.size(); ++i) {
        auto const one = db.get_job(asked[i], "claim").value();
        BOOST_TEST(api::encode(api::job_model, got[i]) == api::encode(api::job_model, one));
    }
    BOOST_TEST((*got[asked.size() - 3].ids("depends_on_job_ids") == api::id_list{ids[1], ids[0]}));
    BOOST_TEST((*got.back().ids("input_file_ids") == api::id_list{file}));
    BOOST_TEST(db.get_jobs({}, "claim").value().empty());
    std::vector<std::int64_t> const missing{ids[0], 9999};
    auto const refused = db.get_jobs(missing, "claim");
    BOOST_TEST_REQUIRE(!refused.has_value());
    BOOST_TEST(refused.error().status == 404u);
    BOOST_TEST(refused.error().message == db.get_job(9999, "claim").error().message);
}

BOOST_FIXTURE_TEST_CASE(a_bulk_create_is_all_or_nothing, store_fixture)
{
    workflow();
    std::vector<api::record> jobs{
        decode(api::job_model, R"({"workflow_id":1,"name":"a","command":"c"})"),
        decode(api::job_model,
               R"({"workflow_id":1,"name":"b","command":"c","failure_handler_id":5})")};
    auto out = db.create_jobs(jobs, "bulk_jobs");
    BOOST_TEST_REQUIRE(out.has_error());
    BOOST_TEST(out.error().message ==
               R"(bulk_jobs: jobs[1]: field "failure_handler_id": no failure_handler with id 5)");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job") == 0);

    jobs[1] = decode(api::job_model, R"({"workflow_id":2,"name":"b","command":"c"})");
    out = db.create_jobs(jobs, "bulk_jobs");
    BOOST_TEST_REQUIRE(out.has_error());
    BOOST_TEST(out.error().message ==
               R"(bulk_jobs: jobs[1]: field "workflow_id": 2 differs from the batch's workflow 1)");

    // A blocker checked once for the batch still leaves each other id checked: a job of
    // another workflow named after many of this one's fails the batch, and nothing is written.
    auto const own = job(1, "own");
    auto const foreign = job(workflow("other"), "foreign");
    auto const own_id = std::to_string(own);
    auto const depending = [](char const* name, std::string const& ids) {
        return decode(api::job_model, R"({"workflow_id":1,"name":")" + std::string(name) +
                                          R"(","command":"c","depends_on_job_ids":[)" + ids + "]}");
    };
    std::vector<api::record> mixed{depending("x", own_id),
                                   depending("y", own_id + "," + std::to_string(foreign))};
    out = db.create_jobs(mixed, "bulk_jobs");
    BOOST_TEST_REQUIRE(out.has_error());
    BOOST_TEST(out.error().message ==
               "bulk_jobs: jobs[1]: field \"depends_on_job_ids\": job " + std::to_string(foreign) +
                   " belongs to workflow 2, not 1");
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job") == 2);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job_depends_on") == 0);
    mixed.pop_back();
    out = db.create_jobs(mixed, "bulk_jobs");
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST((*out->front().ids("depends_on_job_ids") == api::id_list{own}));

    std::vector<api::record> many(10001, jobs[0]);
    out = db.create_jobs(many, "bulk_jobs");
    BOOST_TEST_REQUIRE(out.has_error());
    BOOST_TEST(out.error().message ==
               "bulk_jobs: 10001 jobs in one request; at most 10000 are allowed");
}

struct update_case {
    std::string body;
    std::string message;  // empty: accepted
};

BOOST_FIXTURE_TEST_CASE(job_updates_follow_torc_rules, store_fixture)
{
    auto const wf = workflow();
    auto const a = job(wf, "a");
    auto const b = job(wf, "b", R"(,"depends_on_job_ids":[1])");
    auto const c = job(wf, "c", R"(,"depends_on_job_ids":[2])");
    auto const base = std::string(R"({"workflow_id":1,"command":"c",)");
    auto put = [&](std::int64_t id, std::string const& body) {
        return db.update_job(id, decode(api::job_model, body, api::decode_mode::update), "jobs");
    };
    // Uninitialized: dependencies may be replaced, but never into a cycle.
    auto self = put(a, base + R"("name":"a","depends_on_job_ids":[1]})");
    BOOST_TEST(self.error().message ==
               R"(jobs: field "depends_on_job_ids": job 1 cannot depend on itself)");
    auto cycle = put(a, base + R"("name":"a","depends_on_job_ids":[3]})");
    BOOST_TEST(
        cycle.error().message ==
        R"(jobs: field "depends_on_job_ids": job 3 depends on job 1, so job 1 cannot depend on it (a cycle))");
    auto files = put(a, base + R"("name":"a","input_file_ids":[4]})");
    BOOST_TEST(files.error().message ==
               R"(jobs: field "input_file_ids": cannot change after the job is created)");
    auto status = put(a, base + R"("name":"a","status":"ready"})");
    BOOST_TEST(status.error().message ==
               R"(jobs: field "status": may only change to disabled, not "ready")");

    auto renamed =
        put(c, base + R"("name":"c2","depends_on_job_ids":[1,2],"supports_termination":true})");
    BOOST_TEST_REQUIRE(renamed.has_value(), (renamed ? "" : renamed.error().message));
    BOOST_TEST(*renamed->text("name") == "c2");
    BOOST_TEST((*renamed->ids("depends_on_job_ids") == api::id_list{1, 2}));
    BOOST_TEST(*renamed->int64("supports_termination") == 1);
    BOOST_TEST(*renamed->int64("attempt_id") == 1);  // absent in the body: kept
    auto disabled = put(b, base + R"("name":"b","status":"disabled"})");
    BOOST_TEST_REQUIRE(disabled.has_value());
    BOOST_TEST(*disabled->int64("status") == 9);

    // Past uninitialized only resource_requirements_id and scheduler_id change.
    BOOST_TEST_REQUIRE(db.db().exec("UPDATE job SET status = 2 WHERE id = 1").has_value());
    auto late = put(a, base + R"("name":"x","command":"y"})");
    BOOST_TEST(late.error().message ==
               "jobs: job 1 is ready; after initialization only resource_requirements_id and "
               "scheduler_id may change (changed: name, command)");
    auto const rr = add(api::resource_requirements_model, R"({"workflow_id":1,"name":"small"})");
    auto allowed = put(a, base + R"("name":"a","scheduler_id":4,"resource_requirements_id":)" +
                              std::to_string(rr) + "}");
    BOOST_TEST_REQUIRE(allowed.has_value(), (allowed ? "" : allowed.error().message));
    BOOST_TEST(*allowed->int64("scheduler_id") == 4);
    BOOST_TEST(*allowed->int64("resource_requirements_id") == rr);
    auto missing = put(42, base + R"("name":"a"})");
    BOOST_TEST(missing.error().status == 404u);
    BOOST_TEST(missing.error().message == "jobs: no job with id 42");
}

BOOST_FIXTURE_TEST_CASE(relationship_listings, store_fixture)
{
    auto const wf = workflow();
    auto const f = add(api::file_model, R"({"workflow_id":1,"name":"f","path":"/f"})");
    add(api::file_model, R"({"workflow_id":1,"name":"lonely","path":"/l"})");
    auto const d = add(api::user_data_model, R"({"workflow_id":1,"name":"d"})");
    auto const a = job(wf, "a", R"(,"output_file_ids":[1],"output_user_data_ids":[1])");
    job(wf, "b", R"(,"depends_on_job_ids":[1],"input_file_ids":[1])");
    job(wf, "c", R"(,"depends_on_job_ids":[1],"input_file_ids":[1],"input_user_data_ids":[1])");
    api::paging page;
    auto deps = db.job_dependencies(wf, page).value();
    BOOST_TEST(deps.total_count == 2);
    BOOST_TEST(
        api::encode_array(api::job_dependency_model, deps.items) ==
        R"([{"job_id":2,"job_name":"b","depends_on_job_id":1,"depends_on_job_name":"a","workflow_id":1},)"
        R"({"job_id":3,"job_name":"c","depends_on_job_id":1,"depends_on_job_name":"a","workflow_id":1}])");
    auto files = db.job_file_relationships(wf, page).value();
    BOOST_TEST(files.total_count == 3);
    BOOST_TEST(
        api::encode_array(api::job_file_relationship_model, files.items) ==
        R"([{"file_id":1,"file_name":"f","file_path":"/f","producer_job_id":1,"producer_job_name":"a","consumer_job_id":2,"consumer_job_name":"b","workflow_id":1},)"
        R"({"file_id":1,"file_name":"f","file_path":"/f","producer_job_id":1,"producer_job_name":"a","consumer_job_id":3,"consumer_job_name":"c","workflow_id":1},)"
        R"({"file_id":2,"file_name":"lonely","file_path":"/l","workflow_id":1}])");
    page.offset = 1;
    page.limit = 1;
    auto data = db.job_user_data_relationships(wf, page).value();
    BOOST_TEST(data.total_count == 1);
    BOOST_TEST(data.items.empty());
    BOOST_TEST(f == 1);
    BOOST_TEST(d == 1);
    BOOST_TEST(a == 1);
}

BOOST_AUTO_TEST_SUITE_END()
