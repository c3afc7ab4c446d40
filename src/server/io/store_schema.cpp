// The schema, close to Torc's own tables (migrations/20250101000000_initial_schema.up.sql), with
// these differences: workflow_status.id is the workflow's id (Torc relies on the two autoincrements
// staying in step), every table cascades from workflow, job status is the integer of
// docs/TORC-COMPATIBILITY.md §1, link tables ignore duplicate ids, and resource requirement and
// failure handler names are unique per workflow (Torc refuses a second `default`).
//
// References between rows of one workflow use NO ACTION, which SQLite checks at the end of the
// statement: a cascade from workflow removes both sides first, while deleting a resource
// requirement that jobs still use fails.
#include "store_detail.hpp"

#include <array>

namespace torcrun::io::detail {
namespace {

constexpr std::string_view schema_v1 = R"sql(
CREATE TABLE workflow (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  user TEXT NOT NULL,
  description TEXT,
  timestamp TEXT NOT NULL,
  compute_node_expiration_buffer_seconds INTEGER NOT NULL DEFAULT 60,
  compute_node_wait_for_new_jobs_seconds INTEGER NOT NULL DEFAULT 90,
  compute_node_ignore_workflow_completion INTEGER NOT NULL DEFAULT 0,
  compute_node_wait_for_healthy_database_minutes INTEGER NOT NULL DEFAULT 20,
  compute_node_min_time_for_new_jobs_seconds INTEGER NOT NULL DEFAULT 300,
  jobs_sort_method TEXT NOT NULL DEFAULT 'gpus_runtime_memory',
  resource_monitor_config TEXT,
  slurm_defaults TEXT,
  use_pending_failed INTEGER NOT NULL DEFAULT 0,
  status_id INTEGER GENERATED ALWAYS AS (id) VIRTUAL
);
CREATE TABLE workflow_status (
  id INTEGER PRIMARY KEY REFERENCES workflow(id) ON DELETE CASCADE,
  run_id INTEGER NOT NULL DEFAULT 0,
  is_canceled INTEGER NOT NULL DEFAULT 0,
  is_archived INTEGER NOT NULL DEFAULT 0,
  has_detected_need_to_run_completion_script INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE resource_requirements (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  num_cpus INTEGER NOT NULL DEFAULT 1,
  num_gpus INTEGER NOT NULL DEFAULT 0,
  num_nodes INTEGER NOT NULL DEFAULT 1,
  memory TEXT NOT NULL DEFAULT '1m',
  runtime TEXT NOT NULL DEFAULT 'P0DT1M',
  memory_bytes INTEGER NOT NULL,
  runtime_s INTEGER NOT NULL,
  UNIQUE (workflow_id, name)
);
CREATE TABLE failure_handler (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  rules TEXT NOT NULL,
  UNIQUE (workflow_id, name)
);
CREATE TABLE job (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  command TEXT NOT NULL,
  invocation_script TEXT,
  status INTEGER NOT NULL DEFAULT 0,
  cancel_on_blocking_job_failure INTEGER NOT NULL DEFAULT 1,
  supports_termination INTEGER NOT NULL DEFAULT 0,
  resource_requirements_id INTEGER REFERENCES resource_requirements(id),
  scheduler_id INTEGER,
  failure_handler_id INTEGER REFERENCES failure_handler(id),
  attempt_id INTEGER NOT NULL DEFAULT 1,
  active_compute_node_id INTEGER
);
CREATE INDEX job_workflow_status ON job(workflow_id, status);
CREATE INDEX job_resource_requirements ON job(resource_requirements_id);
CREATE INDEX job_failure_handler ON job(failure_handler_id);
CREATE TABLE file (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  st_mtime REAL
);
CREATE INDEX file_workflow ON file(workflow_id);
CREATE TABLE user_data (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  is_ephemeral INTEGER NOT NULL DEFAULT 0,
  data TEXT
);
CREATE INDEX user_data_workflow ON user_data(workflow_id);
CREATE TABLE job_depends_on (
  job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  depends_on_job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  PRIMARY KEY (job_id, depends_on_job_id)
);
CREATE INDEX job_depends_on_upstream ON job_depends_on(depends_on_job_id);
CREATE TABLE job_input_file (
  job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  file_id INTEGER NOT NULL REFERENCES file(id) ON DELETE CASCADE,
  PRIMARY KEY (job_id, file_id)
);
CREATE INDEX job_input_file_file ON job_input_file(file_id);
CREATE TABLE job_output_file (
  job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  file_id INTEGER NOT NULL REFERENCES file(id) ON DELETE CASCADE,
  PRIMARY KEY (job_id, file_id)
);
CREATE INDEX job_output_file_file ON job_output_file(file_id);
CREATE TABLE job_input_user_data (
  job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  user_data_id INTEGER NOT NULL REFERENCES user_data(id) ON DELETE CASCADE,
  PRIMARY KEY (job_id, user_data_id)
);
CREATE INDEX job_input_user_data_user_data ON job_input_user_data(user_data_id);
CREATE TABLE job_output_user_data (
  job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  user_data_id INTEGER NOT NULL REFERENCES user_data(id) ON DELETE CASCADE,
  PRIMARY KEY (job_id, user_data_id)
);
CREATE INDEX job_output_user_data_user_data ON job_output_user_data(user_data_id);
CREATE TABLE slurm_scheduler (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  name TEXT, account TEXT NOT NULL, gres TEXT, mem TEXT, nodes INTEGER NOT NULL,
  ntasks_per_node INTEGER, partition TEXT, qos TEXT, tmp TEXT, walltime TEXT NOT NULL, extra TEXT
);
CREATE INDEX slurm_scheduler_workflow ON slurm_scheduler(workflow_id);
CREATE TABLE local_scheduler (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  name TEXT, memory TEXT, num_cpus INTEGER
);
CREATE INDEX local_scheduler_workflow ON local_scheduler(workflow_id);
CREATE TABLE compute_node (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  hostname TEXT NOT NULL, pid INTEGER NOT NULL, start_time TEXT NOT NULL,
  duration_seconds REAL, is_active INTEGER, num_cpus INTEGER NOT NULL,
  memory_gb REAL NOT NULL, num_gpus INTEGER NOT NULL, num_nodes INTEGER NOT NULL,
  time_limit TEXT, scheduler_config_id INTEGER, compute_node_type TEXT NOT NULL, scheduler TEXT
);
CREATE INDEX compute_node_workflow ON compute_node(workflow_id);
CREATE TABLE scheduled_compute_node (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  scheduler_id INTEGER NOT NULL, scheduler_config_id INTEGER NOT NULL,
  scheduler_type TEXT NOT NULL, status TEXT NOT NULL
);
CREATE INDEX scheduled_compute_node_workflow ON scheduled_compute_node(workflow_id);
CREATE TABLE result (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  run_id INTEGER NOT NULL, attempt_id INTEGER NOT NULL DEFAULT 1,
  compute_node_id INTEGER NOT NULL REFERENCES compute_node(id) ON DELETE CASCADE,
  return_code INTEGER NOT NULL, exec_time_minutes REAL NOT NULL, completion_time TEXT NOT NULL,
  status INTEGER NOT NULL, peak_memory_bytes INTEGER, avg_memory_bytes INTEGER,
  peak_cpu_percent REAL, avg_cpu_percent REAL
);
CREATE INDEX result_workflow_job ON result(workflow_id, job_id);
CREATE INDEX result_job ON result(job_id);
CREATE INDEX result_compute_node ON result(compute_node_id);
-- The current result of each job (complete_job upserts it); GET /results without all_runs
-- lists only these, as Torc does.
CREATE TABLE workflow_result (
  job_id INTEGER PRIMARY KEY REFERENCES job(id) ON DELETE CASCADE,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  result_id INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE
);
CREATE INDEX workflow_result_result ON workflow_result(result_id);
CREATE INDEX workflow_result_workflow ON workflow_result(workflow_id);
CREATE TABLE event (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX event_workflow ON event(workflow_id, timestamp);
CREATE TABLE workflow_action (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  trigger_type TEXT NOT NULL, action_type TEXT NOT NULL, action_config TEXT NOT NULL,
  job_ids TEXT,
  trigger_count INTEGER NOT NULL DEFAULT 0, required_triggers INTEGER NOT NULL DEFAULT 1,
  executed INTEGER NOT NULL DEFAULT 0, executed_at TEXT,
  executed_by INTEGER REFERENCES compute_node(id) ON DELETE SET NULL,
  persistent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX workflow_action_workflow ON workflow_action(workflow_id);
CREATE INDEX workflow_action_executed_by ON workflow_action(executed_by);
)sql";

// -- job life cycle: worker leases and the claim and lease lookups.
// last_heartbeat_ms is NULL until a worker sends its first heartbeat (an extension), so nodes of
// Torc's own runners, which never send one, hold no lease and are never expired. The claim
// index covers the candidate query (no job row is read); the partial indexes keep the lease
// sweep to the few rows it concerns.
constexpr std::string_view schema_v2 = R"sql(
ALTER TABLE compute_node ADD COLUMN last_heartbeat_ms INTEGER;
CREATE INDEX compute_node_lease ON compute_node(last_heartbeat_ms)
  WHERE is_active = 1 AND last_heartbeat_ms IS NOT NULL;
CREATE INDEX job_claim ON job(workflow_id, status, resource_requirements_id, scheduler_id);
CREATE INDEX job_active_compute_node ON job(active_compute_node_id)
  WHERE active_compute_node_id IS NOT NULL;
CREATE INDEX workflow_action_trigger ON workflow_action(workflow_id, trigger_type);
)sql";

// -- torcrun extension: tasks per node of a multi-node job; NULL (older rows too) = one per node.
constexpr std::string_view schema_v3 = R"sql(
ALTER TABLE resource_requirements ADD COLUMN tasks_per_node INTEGER;
)sql";

// -- newer Torc's record fields. Older rows read as Torc's defaults: no env, no configuration,
// priority 0, allocations not serialized. The claim index gains the priority, so the jobs of one
// (requirements, scheduler) group come out in claim order (priority first, then id).
constexpr std::string_view schema_v4 = R"sql(
ALTER TABLE workflow ADD COLUMN project TEXT;
ALTER TABLE workflow ADD COLUMN metadata TEXT;
ALTER TABLE workflow ADD COLUMN env TEXT;
ALTER TABLE workflow ADD COLUMN execution_config TEXT;
ALTER TABLE job ADD COLUMN env TEXT;
ALTER TABLE job ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE slurm_scheduler ADD COLUMN serialize_allocations INTEGER NOT NULL DEFAULT 0;
DROP INDEX job_claim;
CREATE INDEX job_claim ON job(workflow_id, status, resource_requirements_id, scheduler_id,
                              priority DESC);
CREATE INDEX job_next ON job(workflow_id, status, priority DESC);
)sql";

// -- torcrun extension: the last keyed claim of each compute node (idempotent claims), kept so
// that a claim resent after a server restart gets the first claim's jobs; job_ids is a JSON array.
constexpr std::string_view schema_v5 = R"sql(
CREATE TABLE claim_key (
  compute_node_id INTEGER PRIMARY KEY REFERENCES compute_node(id) ON DELETE CASCADE,
  request_key TEXT NOT NULL,
  job_ids TEXT NOT NULL
);
)sql";

// -- job_workflow_status (workflow_id, status) is a prefix of job_claim and of job_next, which
// serve every lookup it served; each status change wrote it as one more b-tree.
constexpr std::string_view schema_v6 = R"sql(
DROP INDEX job_workflow_status;
)sql";

// -- access control: Torc's three tables (migrations 20251229000000 and 20251230000000, with
// is_system in the first place) and its built-in `admin` group, whose members the server sets
// from auth.admin_users at each start. The unique (user_name, group_id) and the primary key
// (workflow_id, group_id) serve the per-request access query; workflow_user serves the
// filtered workflow listing.
constexpr std::string_view schema_v7 = R"sql(
CREATE TABLE access_group (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  description TEXT,
  created_at TEXT NOT NULL,
  is_system INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE user_group_membership (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_name TEXT NOT NULL,
  group_id INTEGER NOT NULL REFERENCES access_group(id) ON DELETE CASCADE,
  role TEXT NOT NULL DEFAULT 'member',
  created_at TEXT NOT NULL,
  UNIQUE (user_name, group_id)
);
CREATE INDEX user_group_membership_group ON user_group_membership(group_id);
CREATE TABLE workflow_access_group (
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES access_group(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (workflow_id, group_id)
);
CREATE INDEX workflow_access_group_group ON workflow_access_group(group_id);
CREATE INDEX workflow_user ON workflow(user);
INSERT INTO access_group (name, description, created_at, is_system)
  VALUES ('admin', 'System administrators', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
)sql";

// -- torcrun extension: the retries the server applied for a fenced request, so that a retry
// sent again (its reply was lost, perhaps across a server restart) is told from one of an
// attempt the lease sweep ended: the first names its own node, the other does not.
constexpr std::string_view schema_v8 = R"sql(
CREATE TABLE job_retry (
  job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
  attempt_id INTEGER NOT NULL,
  run_id INTEGER NOT NULL,
  compute_node_id INTEGER NOT NULL REFERENCES compute_node(id) ON DELETE CASCADE,
  PRIMARY KEY (job_id, attempt_id)
);
CREATE INDEX job_retry_compute_node ON job_retry(compute_node_id);
)sql";

// -- both contracts (docs/TORC-COMPATIBILITY.md, "Both contracts: v0.10 and 0.23"): the
// configuration fields keep the JSON text of the value that came, a string literal or an object,
// and are answered in that form. Rows written before held a string's content (or an object's
// text) and were answered as a string: they become that string's literal, so they answer as
// before. 0.23's asynchronous initialize_jobs records a task; its compute nodes report the end
// of their allocation and their usage; its workflows, where they were submitted from and whether
// RO-Crate records were asked for.
constexpr std::string_view schema_v9 = R"sql(
ALTER TABLE compute_node ADD COLUMN end_time TEXT;
ALTER TABLE compute_node ADD COLUMN sample_count INTEGER;
ALTER TABLE compute_node ADD COLUMN peak_cpu_percent REAL;
ALTER TABLE compute_node ADD COLUMN avg_cpu_percent REAL;
ALTER TABLE compute_node ADD COLUMN peak_memory_bytes INTEGER;
ALTER TABLE compute_node ADD COLUMN avg_memory_bytes INTEGER;
ALTER TABLE workflow ADD COLUMN submission_directory TEXT;
ALTER TABLE workflow ADD COLUMN enable_ro_crate INTEGER;
UPDATE workflow SET resource_monitor_config = json_quote(resource_monitor_config)
  WHERE resource_monitor_config IS NOT NULL;
UPDATE workflow SET slurm_defaults = json_quote(slurm_defaults) WHERE slurm_defaults IS NOT NULL;
CREATE TABLE task (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  operation TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  started_at_ms INTEGER,
  finished_at_ms INTEGER,
  error TEXT
);
CREATE INDEX task_workflow ON task(workflow_id);
)sql";

// -- torcrun extension (docs/TORC-COMPATIBILITY.md §5, "Job labels"): a job's label; only a
// claim naming the same label takes it, a claim naming none only jobs without one.
constexpr std::string_view schema_v10 = R"sql(
ALTER TABLE job ADD COLUMN label TEXT;
)sql";

// -- dynamic jobs (newer Torc's spawn_jobs, docs/TORC-COMPATIBILITY.md §5 "Dynamic jobs"): the
// workflow's `dynamic_jobs` object as JSON text; a job's `origin` ("spawn" for a job spawn_jobs
// added, NULL for a declared one) and, a torcrun extension, the job that spawned it. The
// lineage's state lives in user_data records, as in Torc.
constexpr std::string_view schema_v11 = R"sql(
ALTER TABLE workflow ADD COLUMN dynamic_jobs TEXT;
ALTER TABLE job ADD COLUMN origin TEXT;
ALTER TABLE job ADD COLUMN spawned_by_job_id INTEGER;
CREATE INDEX job_spawned_by ON job(spawned_by_job_id) WHERE spawned_by_job_id IS NOT NULL;
)sql";

// -- torcrun extension (docs/TORC-COMPATIBILITY.md §4.14): an allocation's history as
// `torcrun allocations` shows it: the jobs it was made for, its shape, when it was submitted,
// started and ended, its nodes and why it ended.
constexpr std::string_view schema_v12 = R"sql(
ALTER TABLE scheduled_compute_node ADD COLUMN made_for TEXT;
ALTER TABLE scheduled_compute_node ADD COLUMN shape TEXT;
ALTER TABLE scheduled_compute_node ADD COLUMN submit_time TEXT;
ALTER TABLE scheduled_compute_node ADD COLUMN start_time TEXT;
ALTER TABLE scheduled_compute_node ADD COLUMN end_time TEXT;
ALTER TABLE scheduled_compute_node ADD COLUMN node TEXT;
ALTER TABLE scheduled_compute_node ADD COLUMN end_reason TEXT;
)sql";

// -- newer Torc's datasets (docs/TORC-COMPATIBILITY.md §5, "Datasets"): a directory its
// producers write and its consumers read once the server hashed it. `generation` counts the
// claims for finalization, so a hash computed for an earlier claim is never recorded. And 0.23's
// RO-Crate entities (§5, "RO-Crate").
constexpr std::string_view schema_v13 = R"sql(
CREATE TABLE dataset (
    id INTEGER PRIMARY KEY,
    workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    description TEXT,
    hash_mode TEXT NOT NULL DEFAULT 'manifest',
    status TEXT NOT NULL DEFAULT 'pending',
    generation INTEGER NOT NULL DEFAULT 0,
    claimed_at TEXT,
    file_count INTEGER,
    total_size_bytes INTEGER,
    manifest_hash TEXT,
    finalized_at TEXT,
    error TEXT,
    UNIQUE (workflow_id, name)
);
CREATE TABLE job_dataset_output (
    job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
    dataset_id INTEGER NOT NULL REFERENCES dataset(id) ON DELETE CASCADE,
    PRIMARY KEY (job_id, dataset_id)
);
CREATE TABLE job_dataset_input (
    job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
    dataset_id INTEGER NOT NULL REFERENCES dataset(id) ON DELETE CASCADE,
    PRIMARY KEY (job_id, dataset_id)
);
CREATE INDEX job_dataset_output_dataset ON job_dataset_output(dataset_id);
CREATE INDEX job_dataset_input_dataset ON job_dataset_input(dataset_id);
CREATE INDEX dataset_status ON dataset(status);
CREATE TABLE ro_crate_entity (
    id INTEGER PRIMARY KEY,
    workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
    file_id INTEGER REFERENCES file(id) ON DELETE SET NULL,
    entity_id TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    metadata TEXT NOT NULL
);
CREATE INDEX ro_crate_entity_workflow ON ro_crate_entity(workflow_id, entity_id);
)sql";

// Append new versions; never edit one that has shipped.
// -- claims read the ready jobs from the store's ready index (src/server/io/ready_jobs.hpp), built
// from the job table at open: the two wide indexes that served the claims' reads give way to the
// narrow (workflow_id, status) one that the counts, status listings and the index's fallback read
// need, so a status change rewrites one index entry instead of two wide ones.
constexpr std::string_view schema_v14 = R"sql(
DROP INDEX IF EXISTS job_claim;
DROP INDEX IF EXISTS job_next;
CREATE INDEX IF NOT EXISTS job_workflow_status ON job(workflow_id, status);
)sql";

// -- torcrun extension (docs/TORC-COMPATIBILITY.md §5, "Streamed creation"): the blocks of job
// ids reserved for a workflow, against which a batch created at given ids is checked.
constexpr std::string_view schema_v15 = R"sql(
CREATE TABLE job_id_block (
  workflow_id INTEGER NOT NULL REFERENCES workflow(id) ON DELETE CASCADE,
  first_id INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (workflow_id, first_id)
);
)sql";

constexpr std::array<std::string_view, 15> migrations{schema_v1, schema_v2, schema_v3,
                                                      schema_v4, schema_v5, schema_v6,
                                                      schema_v7, schema_v8, schema_v9,
                                                      schema_v10, schema_v11, schema_v12,
                                                      schema_v13, schema_v14, schema_v15};

}  // namespace

int schema_version() { return static_cast<int>(migrations.size()); }

core::result<void> migrate(sqlite::connection& db)
{
    auto created = db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    if (!created) return core::error{"store: " + created.error().message};
    int current = 0;
    {
        // Finalized before the migrations run: DROP INDEX fails while a statement is open.
        auto stmt = db.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version");
        if (!stmt) return core::error{"store: " + stmt.error().message};
        auto row = stmt->step();
        if (!row) return core::error{"store: " + row.error().message};
        current = static_cast<int>(stmt->int64(0));
    }
    if (current > schema_version()) {
        return core::error{"store: the database has schema version " + std::to_string(current) +
                           ", newer than this torcrun knows (" + std::to_string(schema_version()) +
                           ")"};
    }
    for (int v = current + 1; v <= schema_version(); ++v) {
        auto tx = sqlite::transaction::begin(db);
        if (!tx) return core::error{"store: " + tx.error().message};
        auto applied = db.exec(migrations[static_cast<std::size_t>(v - 1)]);
        if (!applied)
            return core::error{"store: migration " + std::to_string(v) + ": " +
                               applied.error().message};
        auto noted =
            db.exec("INSERT INTO schema_version (version) VALUES (" + std::to_string(v) + ")");
        if (!noted) return core::error{"store: " + noted.error().message};
        if (auto done = tx->commit(); !done) return core::error{"store: " + done.error().message};
    }
    return {};
}

}  // namespace torcrun::io::detail
