#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace ava::session {

// One zstd frame per event record, with the content size and content checksum
// flags set: the whole log is a valid zstd stream, and a torn or corrupted
// frame is detected by zstd itself.
class FrameEncoder {
 public:
  FrameEncoder();
  ~FrameEncoder();
  FrameEncoder(const FrameEncoder&) = delete;
  FrameEncoder& operator=(const FrameEncoder&) = delete;

  // Appends the compressed frame of `payload` to `out`.
  Result<void> encode(std::string_view payload, std::string& out);

 private:
  ZSTD_CCtx_s* context_;
};

class FrameDecoder {
 public:
  explicit FrameDecoder(std::size_t max_content);
  ~FrameDecoder();
  FrameDecoder(const FrameDecoder&) = delete;
  FrameDecoder& operator=(const FrameDecoder&) = delete;

  struct Frame {
    std::size_t compressed_size = 0;
    std::string_view content;  // valid until the next decode
  };
  // Decodes the frame starting at data[0]. Errors: ErrorCode::corrupt with the
  // reason (truncated, bad checksum, not a frame, too large).
  Result<Frame> decode(std::string_view data);

 private:
  ZSTD_DCtx_s* context_;
  std::size_t max_content_;
  std::string buffer_;
};

// The offset of the first complete, checksum-valid frame that starts after
// `from`, if any: what tells corruption in the middle from a torn tail.
std::optional<std::size_t> find_valid_frame_after(std::string_view bytes, std::size_t from,
                                                  std::size_t max_content);

}  // namespace ava::session
