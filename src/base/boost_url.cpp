// Boost.URL compiled once for every package (header-only mode, like Asio in
// asio.cpp), so URL parsing and percent-decoding have one implementation.
#include <boost/url/src.hpp>
