#include "cli/model_query.hpp"

#include <exception>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace ava::cli {

namespace asio = boost::asio;

std::vector<llm::ProviderModels> query_all(const std::vector<llm::ModelSource>& sources,
                                           const llm::Settings& settings) {
  asio::io_context io;
  std::vector<llm::ProviderModels> results(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    asio::co_spawn(
        io,
        llm::query_models(io.get_executor(), sources[i],
                          llm::listing_options(sources[i], settings)),
        [&results, &sources, i](const std::exception_ptr& failure, llm::ProviderModels listed) {
          if (failure) {
            results[i].source = sources[i];
            results[i].error = "internal error while listing models";
          } else {
            results[i] = std::move(listed);
          }
        });
  }
  io.run();
  return results;
}

}  // namespace ava::cli
