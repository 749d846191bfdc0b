// The fuzz targets as plain regression tests (the dev tree): runs
// LLVMFuzzerTestOneInput once on every file in the files and folders named
// on the command line, in name order. A folder that does not exist counts as
// empty (a target may have no crash inputs yet), but running no input at all
// fails: the corpus must be there.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

std::vector<std::filesystem::path> inputs_in(const std::filesystem::path& place) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (std::filesystem::is_regular_file(place, error)) return {place};
  if (!std::filesystem::is_directory(place, error)) {
    std::fprintf(stderr, "replay: %s: none (no such folder)\n", place.c_str());
    return files;
  }
  for (const auto& entry : std::filesystem::directory_iterator(place)) {
    if (entry.is_regular_file() && !entry.path().filename().string().starts_with('.')) {
      files.push_back(entry.path());
    }
  }
  std::ranges::sort(files);
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const auto files = inputs_in(argv[i]);
    for (const auto& file : files) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        return 1;
      }
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::fprintf(stderr, "replay: %zu inputs from %s\n", files.size(), argv[i]);
    count += files.size();
  }
  if (count == 0) {
    std::fprintf(stderr, "replay: no input at all\n");
    return 1;
  }
  return 0;
}
