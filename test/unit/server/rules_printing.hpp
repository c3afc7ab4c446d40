// How the server-rule values print in Boost.Test failure messages. Defined here, in the values'
// namespace so that ADL finds them, because core has no use for streams.
#pragma once

#include "torcrun/server/claim_selection.hpp"
#include "torcrun/server/dependency_resolution.hpp"
#include "torcrun/server/job_status.hpp"
#include "torcrun/server/job_transitions.hpp"
#include "torcrun/server/rejection.hpp"
#include "torcrun/server/worker_lease.hpp"

#include <ostream>

namespace torcrun::core {

inline std::ostream& operator<<(std::ostream& os, job_status s) { return os << to_string(s); }

inline std::ostream& operator<<(std::ostream& os, jobs_sort_method m) { return os << to_string(m); }

inline std::ostream& operator<<(std::ostream& os, orphan_policy p) { return os << to_string(p); }

inline std::ostream& operator<<(std::ostream& os, rejection const& r)
{
    return os << r.http_status << ' ' << r.message;
}

inline std::ostream& operator<<(std::ostream& os, status_update const& u)
{
    return os << u.job_id << ':' << u.from << "->" << u.to;
}

inline std::ostream& operator<<(std::ostream& os, dependency_edge const& e)
{
    return os << e.job_id << "->" << e.depends_on_job_id;
}

}  // namespace torcrun::core
