#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ava::base {

// Standard base64 (RFC 4648 §4, with padding).
std::string base64_encode(std::string_view bytes);

// base64url (RFC 4648 §5) without padding, as PKCE and JWTs use it.
std::string base64url_encode(std::string_view bytes);

// Strict decoding: the standard alphabet, padded to a multiple of four, no
// whitespace; nullopt for anything else. Stops with nullopt as soon as the
// decoded size would pass `limit`.
std::optional<std::string> base64_decode(std::string_view text, std::size_t limit);

// The decoded size of padded base64 of this length (an upper bound for
// invalid input), without decoding it.
constexpr std::size_t base64_decoded_size(std::size_t length) { return length / 4 * 3; }

// The media type of a png, jpeg, gif or webp image from its first bytes;
// nullopt for anything else.
std::optional<std::string> image_media_type(std::string_view head);

}  // namespace ava::base
