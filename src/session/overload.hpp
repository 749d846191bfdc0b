#pragma once

namespace ava::session {

// std::visit over a set of lambdas, one per alternative.
template <class... Ts>
struct Overload : Ts... {
  using Ts::operator()...;
};

}  // namespace ava::session
