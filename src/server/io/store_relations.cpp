// The relationship listings of a workflow: job -> job edges, and each file or user-data row
// with its producing and consuming jobs (one row per producer x consumer pair; a missing side
// is left out of the JSON, as Torc's Option fields are).
#include "store_detail.hpp"

namespace torcrun::io {

using detail::to_api_error;

api_result<page_rows> store::query_page(std::string const& select, std::string const& count,
                                        std::int64_t workflow_id, api::paging const& page,
                                        api::model_spec const& model)
{
    auto const what = std::string(model.name);
    page_rows out;
    auto stmt = db_.prepare(select + " LIMIT ? OFFSET ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    stmt->bind(1, workflow_id);
    stmt->bind(2, page.limit);
    stmt->bind(3, page.offset);
    while (true) {
        auto row = stmt->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) break;
        out.items.push_back(detail::read_record(*stmt, model));
    }
    auto total = detail::scalar(db_, count, {workflow_id}, what);
    if (!total) return total.error();
    out.total_count = *total ? std::get<std::int64_t>(**total) : 0;
    return out;
}

api_result<page_rows> store::job_dependencies(std::int64_t workflow_id, api::paging const& page)
{
    return query_page("SELECT d.job_id, j.name, d.depends_on_job_id, u.name, j.workflow_id "
                      "FROM job_depends_on d JOIN job j ON j.id = d.job_id "
                      "JOIN job u ON u.id = d.depends_on_job_id "
                      "WHERE j.workflow_id = ? ORDER BY d.job_id, d.rowid",
                      "SELECT COUNT(*) FROM job_depends_on d JOIN job j ON j.id = d.job_id "
                      "WHERE j.workflow_id = ?",
                      workflow_id, page, api::job_dependency_model);
}

api_result<page_rows> store::job_file_relationships(std::int64_t workflow_id,
                                                    api::paging const& page)
{
    std::string const from =
        " FROM file f "
        "LEFT JOIN job_output_file p ON p.file_id = f.id LEFT JOIN job pj ON pj.id = p.job_id "
        "LEFT JOIN job_input_file c ON c.file_id = f.id LEFT JOIN job cj ON cj.id = c.job_id "
        "WHERE f.workflow_id = ?";
    return query_page(
        "SELECT f.id, f.name, f.path, p.job_id, pj.name, c.job_id, cj.name, f.workflow_id" + from +
            " ORDER BY f.id, p.job_id, c.job_id",
        "SELECT COUNT(*)" + from, workflow_id, page, api::job_file_relationship_model);
}

api_result<page_rows> store::job_user_data_relationships(std::int64_t workflow_id,
                                                         api::paging const& page)
{
    std::string const from = " FROM user_data u "
                             "LEFT JOIN job_output_user_data p ON p.user_data_id = u.id "
                             "LEFT JOIN job pj ON pj.id = p.job_id "
                             "LEFT JOIN job_input_user_data c ON c.user_data_id = u.id "
                             "LEFT JOIN job cj ON cj.id = c.job_id "
                             "WHERE u.workflow_id = ?";
    return query_page("SELECT u.id, u.name, p.job_id, pj.name, c.job_id, cj.name, u.workflow_id" +
                          from + " ORDER BY u.id, p.job_id, c.job_id",
                      "SELECT COUNT(*)" + from, workflow_id, page,
                      api::job_user_data_relationship_model);
}

}  // namespace torcrun::io
