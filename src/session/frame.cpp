#include "session/frame.hpp"

#include <zstd.h>

#include <fmt/format.h>

namespace ava::session {

namespace {
// Level 1: event records are small and appends sit on the acknowledgement path.
constexpr int kCompressionLevel = 1;
}  // namespace

FrameEncoder::FrameEncoder() : context_(ZSTD_createCCtx()) {
  ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, kCompressionLevel);
  ZSTD_CCtx_setParameter(context_, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(context_, ZSTD_c_contentSizeFlag, 1);
}

FrameEncoder::~FrameEncoder() { ZSTD_freeCCtx(context_); }

Result<void> FrameEncoder::encode(std::string_view payload, std::string& out) {
  const std::size_t start = out.size();
  std::size_t written = 0;
  // The frame goes straight into `out`, without zero-filling the bound first.
  out.resize_and_overwrite(start + ZSTD_compressBound(payload.size()), [&](char* data,
                                                                           std::size_t size) {
    written = ZSTD_compress2(context_, data + start, size - start, payload.data(), payload.size());
    return ZSTD_isError(written) != 0 ? start : start + written;
  });
  if (ZSTD_isError(written) != 0) {
    return fail(ErrorCode::internal, fmt::format("zstd compress: {}", ZSTD_getErrorName(written)));
  }
  return {};
}

FrameDecoder::FrameDecoder(std::size_t max_content)
    : context_(ZSTD_createDCtx()), max_content_(max_content) {}

FrameDecoder::~FrameDecoder() { ZSTD_freeDCtx(context_); }

Result<FrameDecoder::Frame> FrameDecoder::decode(std::string_view data) {
  const std::size_t size = ZSTD_findFrameCompressedSize(data.data(), data.size());
  if (ZSTD_isError(size) != 0) {
    return fail(ErrorCode::corrupt,
                fmt::format("incomplete or invalid zstd frame ({})", ZSTD_getErrorName(size)));
  }
  const unsigned long long content = ZSTD_getFrameContentSize(data.data(), size);
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN) {
    return fail(ErrorCode::corrupt, "zstd frame without a content size");
  }
  if (content > max_content_) {
    return fail(ErrorCode::corrupt,
                fmt::format("frame content of {} bytes exceeds the record limit", content));
  }
  buffer_.resize(content);
  const std::size_t produced =
      ZSTD_decompressDCtx(context_, buffer_.data(), buffer_.size(), data.data(), size);
  if (ZSTD_isError(produced) != 0) {
    return fail(ErrorCode::corrupt,
                fmt::format("zstd frame does not decode ({})", ZSTD_getErrorName(produced)));
  }
  if (produced != content) return fail(ErrorCode::corrupt, "zstd frame content size mismatch");
  return Frame{.compressed_size = size, .content = std::string_view(buffer_.data(), produced)};
}

std::optional<std::size_t> find_valid_frame_after(std::string_view bytes, std::size_t from,
                                                  std::size_t max_content) {
  static constexpr std::string_view kZstdMagic = "\x28\xb5\x2f\xfd";
  FrameDecoder decoder(max_content);
  for (std::size_t at = bytes.find(kZstdMagic, from + 1); at != std::string_view::npos;
       at = bytes.find(kZstdMagic, at + 1)) {
    if (decoder.decode(bytes.substr(at))) return at;
  }
  return std::nullopt;
}

}  // namespace ava::session
