// JWS signing with OpenSSL 3's EVP interface. ECDSA signatures come out of
// OpenSSL as DER and go into a JWS as the fixed-width r||s pair (RFC 7518
// §3.4), so they are converted.

#include "ava/oauth/jwt.hpp"

#include <memory>
#include <vector>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "ava/base/base64.hpp"

namespace ava::oauth {

namespace {

struct FreeKey {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct FreeBio {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct FreeDigest {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
struct FreeSignature {
  void operator()(ECDSA_SIG* signature) const { ECDSA_SIG_free(signature); }
};
using Key = std::unique_ptr<EVP_PKEY, FreeKey>;

// An encrypted key would make OpenSSL ask on the terminal: no passphrase.
int no_passphrase(char* /*buffer*/, int /*size*/, int /*rwflag*/, void* /*user*/) { return 0; }

Result<Key> read_key(std::string_view pem) {
  auto bad = [](std::string_view why) {
    return fail(ErrorCode::invalid_argument, std::string("the private key ") + std::string(why));
  };
  if (pem.empty()) return bad("is empty");
  if (pem.size() > max_private_key_bytes) return bad("is larger than 16 KiB");
  std::unique_ptr<BIO, FreeBio> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return fail(ErrorCode::internal, "out of memory reading the private key");
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) {
    return bad("is not an unencrypted PEM private key (PKCS#8, or a traditional EC or RSA key)");
  }
  return key;
}

struct Algorithm {
  std::string name;
  const EVP_MD* digest = nullptr;
  int ec_bits = 0;  // ECDSA: the width of r and s in bits; 0 for RSA
  bool pss = false;
};

Result<Algorithm> algorithm_for(EVP_PKEY* key, std::string_view wanted) {
  const int type = EVP_PKEY_get_base_id(key);
  const int bits = EVP_PKEY_get_bits(key);
  auto mismatch = [&](std::string_view kind) {
    return fail(ErrorCode::invalid_argument,
                std::string("signing algorithm ") + std::string(wanted) + " does not fit " +
                    std::string(kind) + " key (ES256: P-256, ES384: P-384, RS256/PS256: RSA)");
  };
  if (type == EVP_PKEY_EC) {
    const std::string natural = bits == 256 ? "ES256" : bits == 384 ? "ES384" : "";
    if (natural.empty()) {
      return fail(ErrorCode::invalid_argument,
                  "the private key's curve is not supported (P-256 or P-384)");
    }
    if (!wanted.empty() && wanted != natural) return mismatch("this EC");
    return Algorithm{natural, natural == "ES256" ? EVP_sha256() : EVP_sha384(), bits, false};
  }
  if (type == EVP_PKEY_RSA) {
    if (bits < 2048) {
      return fail(ErrorCode::invalid_argument, "the RSA private key is shorter than 2048 bits");
    }
    if (wanted.empty() || wanted == "RS256") return Algorithm{"RS256", EVP_sha256(), 0, false};
    if (wanted == "PS256") return Algorithm{"PS256", EVP_sha256(), 0, true};
    return mismatch("an RSA");
  }
  return fail(ErrorCode::invalid_argument, "the private key is neither an EC nor an RSA key");
}

// DER ECDSA-Sig-Value -> r||s, each left-padded to the curve's width.
Result<std::string> raw_ecdsa(const std::vector<unsigned char>& der, int bits) {
  const unsigned char* cursor = der.data();
  std::unique_ptr<ECDSA_SIG, FreeSignature> signature(
      d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(der.size())));
  if (!signature) return fail(ErrorCode::internal, "OpenSSL produced an unreadable signature");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(signature.get(), &r, &s);
  const int width = bits / 8;
  std::string out(static_cast<std::size_t>(width) * 2, '\0');
  auto* bytes = reinterpret_cast<unsigned char*>(out.data());
  if (BN_bn2binpad(r, bytes, width) != width || BN_bn2binpad(s, bytes + width, width) != width) {
    return fail(ErrorCode::internal, "an ECDSA signature part is too wide");
  }
  return out;
}

Result<std::string> sign(EVP_PKEY* key, const Algorithm& algorithm, std::string_view input) {
  std::unique_ptr<EVP_MD_CTX, FreeDigest> context(EVP_MD_CTX_new());
  EVP_PKEY_CTX* key_context = nullptr;
  if (!context ||
      EVP_DigestSignInit(context.get(), &key_context, algorithm.digest, nullptr, key) != 1) {
    return fail(ErrorCode::internal, "could not start signing with the private key");
  }
  if (algorithm.pss &&
      (EVP_PKEY_CTX_set_rsa_padding(key_context, RSA_PKCS1_PSS_PADDING) != 1 ||
       EVP_PKEY_CTX_set_rsa_pss_saltlen(key_context, RSA_PSS_SALTLEN_DIGEST) != 1)) {
    return fail(ErrorCode::internal, "could not set up RSA-PSS signing");
  }
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  std::size_t size = 0;
  if (EVP_DigestSign(context.get(), nullptr, &size, data, input.size()) != 1) {
    return fail(ErrorCode::internal, "could not size the signature");
  }
  std::vector<unsigned char> signature(size);
  if (EVP_DigestSign(context.get(), signature.data(), &size, data, input.size()) != 1) {
    return fail(ErrorCode::internal, "signing with the private key failed");
  }
  signature.resize(size);
  if (algorithm.ec_bits != 0) return raw_ecdsa(signature, algorithm.ec_bits);
  return std::string(signature.begin(), signature.end());
}

}  // namespace

Result<std::string> signing_algorithm(std::string_view pem, std::string_view wanted) {
  AVA_TRY(auto key, read_key(pem));
  AVA_TRY(auto algorithm, algorithm_for(key.get(), wanted));
  return algorithm.name;
}

Result<std::string> sign_jwt(std::string_view pem, std::string_view algorithm,
                             nlohmann::json header, const nlohmann::json& claims) {
  AVA_TRY(auto key, read_key(pem));
  AVA_TRY(auto chosen, algorithm_for(key.get(), algorithm));
  header["alg"] = chosen.name;
  if (!header.contains("typ")) header["typ"] = "JWT";
  const auto input =
      base::base64url_encode(header.dump()) + "." + base::base64url_encode(claims.dump());
  AVA_TRY(auto signature, sign(key.get(), chosen, input));
  return input + "." + base::base64url_encode(signature);
}

}  // namespace ava::oauth
