#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/base/log.hpp"
#include "ava/llm/settings.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::llm {

// One place `ava models` asks for models: a configured provider or a local
// server looked for on its default port.
struct ModelSource {
  std::string provider;
  ProviderKind kind = ProviderKind::openai;
  std::string base_url;
  base::Secret api_key;
  std::vector<transport::HttpHeader> headers;
  std::string default_model;  // what Ava uses when no model is named
  bool configured = true;     // false: only probed
  bool in_use = false;        // the provider Ava picks when none is named
  std::string error;          // set when the provider could not even be resolved
};

// What one source answered.
struct ProviderModels {
  ModelSource source;
  bool reachable = false;           // the server answered the listing request
  std::vector<std::string> models;  // ids as the server (or, for mock, Ava) names them
  std::string error;                // why there is no list (empty when reachable)
};

// A local server to look for.
struct LocalProbe {
  ProviderKind kind = ProviderKind::ollama;
  std::string base_url;
};

// Ollama on 127.0.0.1:11434, LM Studio on :1234 and llama.cpp on :8080.
// AVA_LOCAL_PROBE=0 turns probing off; AVA_LOCAL_PROBE=ollama=HOST:PORT,...
// probes those instead (tests point it at loopback servers of their own).
Result<std::vector<LocalProbe>> local_probes(const base::EnvLookup& env);

// The configured providers (the one in use, anthropic / openai when they
// have a key, the other built-ins when selected, every settings.json entry)
// followed by the probes for local servers not configured already.
std::vector<ModelSource> model_sources(const Settings& settings,
                                       const std::vector<LocalProbe>& probes);

// GET {base}/v1/models with x-api-key and anthropic-version (Anthropic),
// GET {root}/api/tags (Ollama; root is the base without /v1), else
// GET {base}/models with a bearer key (OpenAI-compatible servers).
transport::HttpRequest models_request(const ModelSource& source);
// The model ids in a listing reply ("data"[].id, or Ollama's "models"[].name).
Result<std::vector<std::string>> parse_model_list(ProviderKind kind, std::string_view body);

// The HTTP options for a listing: a configured provider gets the usual
// timeouts and the environment's proxy, a probed local port brief ones and
// no proxy (it answers at once or is not there).
transport::HttpClientOptions listing_options(const ModelSource& source, const Settings& settings);

// Lists one source's models. Never fails: errors are in the result. The
// caller picks the options: short timeouts and no proxy suit a probe.
boost::asio::awaitable<ProviderModels> query_models(boost::asio::any_io_executor executor,
                                                    ModelSource source,
                                                    transport::HttpClientOptions options);

// Asks each local probe for its models, one after the other (a loopback
// port answers or refuses at once). One result per probe, in probe order.
boost::asio::awaitable<std::vector<ProviderModels>> query_local_servers(
    boost::asio::any_io_executor executor, const Settings& settings);

// The first local server that answered with a model, in probe order
// (Ollama, LM Studio, llama.cpp); nullptr when none did.
const ProviderModels* first_serving(const std::vector<ProviderModels>& answers);

// `settings` with a detected server as the default provider, for when
// nothing is configured: "provider" names it, its entry points where it was
// found (a probe address may not be the default), with its first model
// unless the entry names one.
Settings using_local_server(Settings settings, const ProviderModels& found);

}  // namespace ava::llm
