// repdiff's C interface to Google's robotstxt (robots.cc, fetched by
// `cargo xtask setup`, never committed). This shim is the only interface:
// Debian's abseil does not alias absl::string_view to std::string_view and
// lives in an inline namespace, so no C++ type may cross into Rust.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "robots.h"

extern "C" {

// Returns 1 when `agent` may fetch `url` under `body`, 0 when it may not and
// -1 when the library threw (e.g. std::bad_alloc): an exception must never
// unwind into Rust. All three inputs are raw bytes passed through verbatim;
// a pointer may be dangling when its length is 0. `*line` gets the matcher's
// matching_line(): the line of the rule that decided, 0 when none matched.
int repdiff_google_one_agent_allowed(const uint8_t* body, size_t body_len,
                                     const uint8_t* agent, size_t agent_len,
                                     const uint8_t* url, size_t url_len,
                                     int* line) {
  try {
    const absl::string_view robots_txt(
        body_len ? reinterpret_cast<const char*>(body) : "", body_len);
    const std::string user_agent(
        agent_len ? reinterpret_cast<const char*>(agent) : "", agent_len);
    const std::string url_str(url_len ? reinterpret_cast<const char*>(url) : "",
                              url_len);
    googlebot::RobotsMatcher matcher;
    const bool allowed =
        matcher.OneAgentAllowedByRobots(robots_txt, user_agent, url_str);
    *line = matcher.matching_line();
    return allowed ? 1 : 0;
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
