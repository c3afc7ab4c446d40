// The attempt record's file: created with its directory at the first line, then appended to.
#include "attempt_record_file.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/worker/launch_plan.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace torcrun::io {

attempt_record_file::attempt_record_file(std::string const& output_dir,
                                         std::int64_t workflow_id, std::string const& hostname)
    : dir_(core::attempt_record_dir(output_dir)),
      path_(detail::cat(dir_, "/wf", std::to_string(workflow_id), "_",
                        hostname.empty() ? std::string("host") : hostname, "_",
                        std::to_string(::getpid()), ".jsonl"))
{
}

attempt_record_file::~attempt_record_file()
{
    if (fd_ >= 0) ::close(fd_);
}

core::result<void> attempt_record_file::append(std::string line)
{
    if (fd_ < 0) {
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd_ < 0)
            return core::error{
                detail::cat("job record: open \"", path_, "\": ", std::strerror(errno))};
    }
    line += '\n';
    std::size_t done = 0;
    while (done < line.size()) {
        auto const n = ::write(fd_, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            return core::error{
                detail::cat("job record: write \"", path_, "\": ", std::strerror(errno))};
        done += static_cast<std::size_t>(n);
    }
    return {};
}

}  // namespace torcrun::io
