#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

// Signed JWTs (RFC 7515/7519) for client authentication with
// private_key_jwt (RFC 7523). Only signing: Ava never has to trust a JWT
// someone else made.
namespace ava::oauth {

// The largest PEM key accepted (a 4096-bit RSA key is about 3.3 KiB).
inline constexpr std::size_t max_private_key_bytes = 16 * 1024;

// The JWS algorithm `pem` signs with: `wanted` when the key can do it
// (ES256 for P-256, ES384 for P-384, RS256 or PS256 for RSA), the key's
// natural one when `wanted` is empty. invalid_argument for a key that does
// not parse, is encrypted, or does not fit the algorithm; the message
// never contains the key.
Result<std::string> signing_algorithm(std::string_view pem, std::string_view wanted);

// header.claims.signature, base64url without padding; `header` gets "alg"
// (and "typ": "JWT" unless it has one).
Result<std::string> sign_jwt(std::string_view pem, std::string_view algorithm,
                             nlohmann::json header, const nlohmann::json& claims);

}  // namespace ava::oauth
