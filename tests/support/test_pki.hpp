#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "support/temp_dir.hpp"

namespace ava::test {

// A throwaway CA and a server certificate for DNS:localhost signed by it,
// made with the openssl tool.
struct TestPki {
  TempDir dir;
  std::string ca() const { return (dir.path() / "ca.pem").string(); }
  std::string cert() const { return (dir.path() / "server.pem").string(); }
  std::string key() const { return (dir.path() / "server.key").string(); }

  TestPki() {
    std::string d = dir.path().string();
    std::string script = fmt::format(
        "cd '{0}' && "
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out "
        "ca.pem "
        "-days 2 -subj /CN=ava-test-ca >/dev/null 2>&1 && "
        "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out "
        "server.csr "
        "-subj /CN=localhost >/dev/null 2>&1 && "
        "printf 'subjectAltName=DNS:localhost\\n' > ext.cnf && "
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem "
        "-days 2 "
        "-extfile ext.cnf >/dev/null 2>&1",
        d);
    if (std::system(script.c_str()) != 0)
      throw std::runtime_error("openssl could not make the test PKI");
  }
};

}  // namespace ava::test
