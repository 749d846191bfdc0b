#pragma once

#include <vector>

#include "ava/doctor/doctor.hpp"

// The doctor's checks, one function per area; run_checks calls them in order.
namespace ava::doctor {

void check_home(const base::Home& home, std::vector<Finding>& out);
void check_disk(const base::Home& home, std::vector<Finding>& out);
void check_backend(const base::Home& home, std::vector<Finding>& out);
void check_sandbox(std::vector<Finding>& out);
// The providers, the local model servers and the MCP servers, asked at once.
void check_network(const base::Home& home, const Options& options, std::vector<Finding>& out);

}  // namespace ava::doctor
