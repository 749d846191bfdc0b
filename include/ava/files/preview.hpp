#pragma once

#include <cstddef>
#include <string>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/files/paths.hpp"
#include "ava/protocol/files.hpp"

namespace ava::files {

// A text preview shows at most this much of a file (its head).
inline constexpr std::size_t max_preview_text = base::MiB;
// Raw bytes (images, PDFs, downloads) are served up to this size.
inline constexpr std::size_t max_raw_bytes = 32 * base::MiB;
// Files up to this size are versioned by their content's SHA-256; larger
// ones by modification time, size and inode (read in full only on download).
inline constexpr std::size_t max_hashed_bytes = 8 * base::MiB;

// What a preview shows of one regular file: its kind (text, image, pdf,
// binary), version and, for text, the content. A folder, a FIFO or a device
// is refused without being opened for reading.
Result<protocol::FilePreview> preview(const ProjectRoot& root, const std::string& relative,
                                      std::size_t max_text = max_preview_text);

struct RawFile {
  std::string bytes;
  std::string kind;        // as in FilePreview
  std::string media_type;  // "application/octet-stream" for text and binary files
  std::string version;
};
// The whole file, when it is at most `max_bytes` (else limit_exceeded).
Result<RawFile> read_raw(const ProjectRoot& root, const std::string& relative,
                         std::size_t max_bytes = max_raw_bytes);

}  // namespace ava::files
