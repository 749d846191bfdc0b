// A deliberately wrong source file: registry may not use transport, so it may
// not include Beast either (transport compiles Beast once for its users).
#include <boost/beast/http.hpp>
