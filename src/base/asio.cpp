// Asio is compiled once, here, instead of in every translation unit that uses
// it (BOOST_ASIO_SEPARATE_COMPILATION is set on ava_base for all dependants).
#include <boost/asio/impl/src.hpp>
