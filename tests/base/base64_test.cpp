#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <string_view>

#include "ava/base/base64.hpp"

using ava::base::base64_decode;
using ava::base::base64_encode;

TEST_CASE("base64: RFC 4648 vectors both ways", "[base][base64]") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CHECK(base64_encode(plain) == encoded);
    CHECK(base64_decode(encoded, 100) == std::string(plain));
  }
}

TEST_CASE("base64url: the URL-safe alphabet without padding", "[base][base64]") {
  using ava::base::base64url_encode;
  CHECK(base64url_encode("") == "");
  CHECK(base64url_encode("f") == "Zg");
  CHECK(base64url_encode("fo") == "Zm8");
  CHECK(base64url_encode("foobar") == "Zm9vYmFy");
  CHECK(base64_encode("\xFB\xFF") == "+/8=");
  CHECK(base64url_encode("\xFB\xFF") == "-_8");
  CHECK(base64url_encode("\xFF\xFF\xFE") == "___-");
}

TEST_CASE("base64: random bytes round-trip", "[base][base64]") {
  std::mt19937 random(42);
  for (std::size_t size = 0; size < 300; ++size) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(random() & 0xFFU);
    CHECK(base64_decode(base64_encode(bytes), size) == bytes);
  }
}

TEST_CASE("base64: strict decoding refuses what is not canonical base64", "[base][base64]") {
  CHECK_FALSE(base64_decode("Zg=", 10));       // not a multiple of four
  CHECK_FALSE(base64_decode("Zg==Zm8=", 10));  // padding before the end
  CHECK_FALSE(base64_decode("Z===", 10));      // too much padding
  CHECK_FALSE(base64_decode("Zm9v\n", 10));    // whitespace
  CHECK_FALSE(base64_decode("Zm-v", 10));      // URL-safe alphabet
  CHECK_FALSE(base64_decode("Zm9vYmFy", 5));   // over the limit
  CHECK(base64_decode("Zm9vYmFy", 6) == std::string("foobar"));
}

TEST_CASE("image media types come from the first bytes", "[base][base64]") {
  using ava::base::image_media_type;
  CHECK(image_media_type("\x89PNG\r\n\x1A\n....") == std::string("image/png"));
  CHECK(image_media_type("\xFF\xD8\xFF\xE0") == std::string("image/jpeg"));
  CHECK(image_media_type("GIF89a...") == std::string("image/gif"));
  using namespace std::string_view_literals;  // the sizes hold NUL bytes
  CHECK(image_media_type("RIFF\x10\0\0\0WEBPVP8 "sv) == std::string("image/webp"));
  CHECK_FALSE(image_media_type("RIFF\x10\0\0\0WAVEfmt "sv));
  CHECK_FALSE(image_media_type("<svg"));
}
