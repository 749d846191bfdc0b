// private_key_jwt assertions: signed with keys made here and checked with
// OpenSSL's verifier (r||s turned back into DER for ECDSA), so a signature
// in the wrong shape fails even though Ava made it.

#include <memory>
#include <string>
#include <vector>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/base64.hpp"
#include "ava/oauth/jwt.hpp"

namespace {

using nlohmann::json;

struct Pkey {
  EVP_PKEY* key = nullptr;
  explicit Pkey(EVP_PKEY* made) : key(made) {}
  ~Pkey() { EVP_PKEY_free(key); }
  Pkey(const Pkey&) = delete;
  Pkey& operator=(const Pkey&) = delete;
};

Pkey ec_key(const char* curve) { return Pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve)); }
Pkey rsa_key(unsigned bits) {
  return Pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits)));
}

std::string pem_of(EVP_PKEY* key, const char* passphrase = nullptr) {
  BIO* bio = BIO_new(BIO_s_mem());
  const EVP_CIPHER* cipher = passphrase != nullptr ? EVP_aes_256_cbc() : nullptr;
  const auto written = PEM_write_bio_PrivateKey(bio, key, cipher, nullptr, 0, nullptr,
                                                const_cast<char*>(passphrase));  // NOLINT
  REQUIRE(written == 1);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(size));
  BIO_free(bio);
  return out;
}

std::string base64url_decode(std::string text) {
  for (auto& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (text.size() % 4 != 0) text += '=';
  auto decoded = ava::base::base64_decode(text, 1 << 20);
  REQUIRE(decoded);
  return *decoded;
}

struct Parts {
  json header;
  json claims;
  std::string input;
  std::string signature;
};

Parts split(const std::string& jwt) {
  const auto first = jwt.find('.');
  const auto second = jwt.find('.', first + 1);
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  return {json::parse(base64url_decode(jwt.substr(0, first))),
          json::parse(base64url_decode(jwt.substr(first + 1, second - first - 1))),
          jwt.substr(0, second), base64url_decode(jwt.substr(second + 1))};
}

std::vector<unsigned char> der_of(const std::string& raw) {
  const auto half = raw.size() / 2;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  ECDSA_SIG* signature = ECDSA_SIG_new();
  ECDSA_SIG_set0(signature, BN_bin2bn(bytes, static_cast<int>(half), nullptr),
                 BN_bin2bn(bytes + half, static_cast<int>(half), nullptr));
  unsigned char* out = nullptr;
  const int size = i2d_ECDSA_SIG(signature, &out);
  std::vector<unsigned char> der(out, out + size);
  OPENSSL_free(out);
  ECDSA_SIG_free(signature);
  return der;
}

bool verifies(EVP_PKEY* key, const Parts& parts, const EVP_MD* digest, bool ecdsa, bool pss) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  EVP_PKEY_CTX* key_context = nullptr;
  REQUIRE(EVP_DigestVerifyInit(context, &key_context, digest, nullptr, key) == 1);
  if (pss) {
    EVP_PKEY_CTX_set_rsa_padding(key_context, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_set_rsa_pss_saltlen(key_context, RSA_PSS_SALTLEN_DIGEST);
  }
  std::vector<unsigned char> signature =
      ecdsa ? der_of(parts.signature)
            : std::vector<unsigned char>(parts.signature.begin(), parts.signature.end());
  const int ok = EVP_DigestVerify(context, signature.data(), signature.size(),
                                  reinterpret_cast<const unsigned char*>(parts.input.data()),
                                  parts.input.size());
  EVP_MD_CTX_free(context);
  return ok == 1;
}

const json claims = {{"iss", "client"}, {"sub", "client"}, {"aud", "https://as.example"}};

}  // namespace

TEST_CASE("ES256 and ES384 assertions verify and carry r||s of the curve's width", "[oauth]") {
  for (const auto& [curve, algorithm, width] :
       {std::tuple{"P-256", "ES256", 64u}, std::tuple{"P-384", "ES384", 96u}}) {
    Pkey key = ec_key(curve);
    const auto pem = pem_of(key.key);
    REQUIRE(ava::oauth::signing_algorithm(pem, "") == std::string(algorithm));
    const auto jwt = ava::oauth::sign_jwt(pem, "", json::object(), claims);
    REQUIRE(jwt);
    const auto parts = split(*jwt);
    CHECK(parts.header["alg"] == algorithm);
    CHECK(parts.header["typ"] == "JWT");
    CHECK(parts.claims == claims);
    CHECK(parts.signature.size() == width);
    const EVP_MD* digest = width == 64 ? EVP_sha256() : EVP_sha384();
    CHECK(verifies(key.key, parts, digest, true, false));
    // A changed claim no longer verifies.
    auto forged = parts;
    forged.input.back() ^= 1;
    CHECK_FALSE(verifies(key.key, forged, digest, true, false));
  }
}

TEST_CASE("RS256 and PS256 assertions verify with an RSA key", "[oauth]") {
  Pkey key = rsa_key(2048);
  const auto pem = pem_of(key.key);
  REQUIRE(ava::oauth::signing_algorithm(pem, "") == std::string("RS256"));
  for (const bool pss : {false, true}) {
    const auto jwt = ava::oauth::sign_jwt(pem, pss ? "PS256" : "RS256",
                                          json{{"typ", "client-authentication+jwt"}}, claims);
    REQUIRE(jwt);
    const auto parts = split(*jwt);
    CHECK(parts.header["alg"] == (pss ? "PS256" : "RS256"));
    CHECK(parts.header["typ"] == "client-authentication+jwt");
    CHECK(verifies(key.key, parts, EVP_sha256(), false, pss));
  }
}

TEST_CASE("keys that cannot sign are refused without showing the key", "[oauth]") {
  using ava::oauth::signing_algorithm;
  Pkey p256 = ec_key("P-256");
  const auto pem = pem_of(p256.key);
  // An algorithm the key cannot do.
  auto wrong = signing_algorithm(pem, "ES384");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message.find("does not fit") != std::string::npos);
  CHECK_FALSE(signing_algorithm(pem, "RS256"));
  CHECK_FALSE(signing_algorithm(pem, "none"));
  // An encrypted key is refused (never a passphrase prompt on the terminal).
  auto encrypted = signing_algorithm(pem_of(p256.key, "secret"), "");
  REQUIRE_FALSE(encrypted);
  CHECK(encrypted.error().message.find("unencrypted") != std::string::npos);
  // Garbage, a truncated key, an empty one, an oversized one.
  auto garbage = signing_algorithm("-----BEGIN PRIVATE KEY-----\nnot a key\n", "");
  REQUIRE_FALSE(garbage);
  CHECK(garbage.error().message.find("not a key") == std::string::npos);
  CHECK_FALSE(signing_algorithm(pem.substr(0, pem.size() / 2), ""));
  CHECK_FALSE(signing_algorithm("", ""));
  CHECK_FALSE(signing_algorithm(std::string(ava::oauth::max_private_key_bytes + 1, 'A'), ""));
  // RSA shorter than 2048 bits.
  Pkey weak = rsa_key(1024);
  auto short_rsa = signing_algorithm(pem_of(weak.key), "");
  REQUIRE_FALSE(short_rsa);
  CHECK(short_rsa.error().message.find("2048") != std::string::npos);
  CHECK_FALSE(ava::oauth::sign_jwt(pem_of(weak.key), "", json::object(), claims));
}
