// Written for repdiff (no upstream code): a recording shim compiled at setup
// against Google's robots.cc and robots_test.cc, which come from the pinned
// jwm-robotstxt sdist into .cache/, never from this repository.
// Force-included (-include) into a copy of Google's robots_test.cc so that
// every matcher call the suite makes is recorded with the test it came from.
//
// Google's suite calls the library through `RobotsMatcher` (via its helper
// IsUserAgentAllowed), `ParseRobotsTxt` with a callback, and two internal
// functions. The macros below point those names at recording stand-ins that
// call the real library unchanged; robots.h is included first, so the
// library's own declarations keep their real names and robots.cc is compiled
// untouched (same file, same flags as the `google` oracle).
#ifndef REPDIFF_CAPTURE_GOOGLE_H_
#define REPDIFF_CAPTURE_GOOGLE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "robots.h"

namespace googlebot {

void RepdiffRecordCall(absl::string_view body, absl::string_view agent,
                       const std::string& url, bool allowed);
void RepdiffRecordSkip(const char* what);

// The matcher, recording each allow/disallow answer it gives the suite.
class RepdiffMatcher : public RobotsMatcher {
 public:
  bool OneAgentAllowedByRobots(absl::string_view robots_txt,
                               const std::string& user_agent,
                               const std::string& url) {
    bool allowed = RobotsMatcher::OneAgentAllowedByRobots(robots_txt, user_agent, url);
    RepdiffRecordCall(robots_txt, user_agent, url, allowed);
    return allowed;
  }
  bool AllowedByRobots(absl::string_view robots_body,
                       const std::vector<std::string>* user_agents,
                       const std::string& url) {
    bool allowed = RobotsMatcher::AllowedByRobots(robots_body, user_agents, url);
    if (user_agents != nullptr && user_agents->size() == 1) {
      RepdiffRecordCall(robots_body, (*user_agents)[0], url, allowed);
    } else {
      RepdiffRecordSkip("AllowedByRobots with several agents");
    }
    return allowed;
  }
  static bool IsValidUserAgentToObey(absl::string_view user_agent) {
    RepdiffRecordSkip("IsValidUserAgentToObey");
    return RobotsMatcher::IsValidUserAgentToObey(user_agent);
  }
};

void RepdiffParseRobotsTxt(absl::string_view robots_body, RobotsParseHandler* handler);
std::string RepdiffGetPathParamsQuery(const std::string& url);
bool RepdiffMaybeEscapePattern(const char* src, char** dst);

}  // namespace googlebot

#define RobotsMatcher RepdiffMatcher
#define ParseRobotsTxt RepdiffParseRobotsTxt
#define GetPathParamsQuery RepdiffGetPathParamsQuery
#define MaybeEscapePattern RepdiffMaybeEscapePattern

#endif  // REPDIFF_CAPTURE_GOOGLE_H_
