// Beast and Asio's SSL support are compiled once, here
// (BOOST_BEAST_SEPARATE_COMPILATION is a public definition of ava_transport),
// as Asio itself is in src/base/asio.cpp.
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
