#include "eval/process.hpp"

#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace ava::eval {
namespace asio = boost::asio;

Result<proc::RunResult> run_sync(proc::RunOptions options) {
  asio::io_context io;
  std::optional<Result<proc::RunResult>> result;
  asio::co_spawn(io, proc::run(std::move(options)),
                 [&](std::exception_ptr error, Result<proc::RunResult> ran) {
                   if (error) {
                     result = fail(ErrorCode::internal, "the process runner failed");
                   } else {
                     result = std::move(ran);
                   }
                 });
  io.run();
  if (!result) return fail(ErrorCode::internal, "the process runner did not finish");
  return std::move(*result);
}

}  // namespace ava::eval
