#pragma once

#include <string>
#include <vector>

#include "check/core/Analysis.hpp"

namespace mpidbg::check {

/// Compiler-style diagnostics, one line each
/// ("x.c:17:7: warning: MESSAGE [mpidbg-thread-level]", the format of GCC and
/// Clang that editors and CI log parsers read), then one summary line starting
/// "mpidbg check: " (files, call sites, the program's minimum level, what it
/// asks, counts), after "note: " lines (other MPI_Init_thread levels, call
/// chains cut). `problems` (files not checked) come first as "error: " lines.
std::string renderText(const CheckReport& report, const std::vector<std::string>& files,
                       const std::vector<std::string>& problems);

/// The same as one JSON object (schema in docs/check.md): {"files", "problems",
/// "sites", "program_needs", "requested", "request_at", "contexts_cut", "other_requests":
/// ["file:line:col"], "findings": [{"file", "line", "column", "severity", "category", "function",
/// "message", "word", "needed", "related": ["file:line:col"]}]}.
std::string renderJson(const CheckReport& report, const std::vector<std::string>& files,
                       const std::vector<std::string>& problems);

/// The same as a SARIF 2.1.0 log (OASIS SARIF 2.1.0, sections 3.13-3.27: one
/// run, tool.driver.rules from kCategories, one result per finding with
/// ruleId, ruleIndex, level, message.text, a physicalLocation with
/// artifactLocation.uri (file:// URI of the path) and region startLine and
/// startColumn, relatedLocations; files not checked as
/// invocations[0].toolExecutionNotifications).
std::string renderSarif(const CheckReport& report, const std::vector<std::string>& files,
                        const std::vector<std::string>& problems);

}  // namespace mpidbg::check
