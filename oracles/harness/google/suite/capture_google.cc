// Written for repdiff (no upstream code): a recording shim compiled at setup
// against Google's robots.cc and robots_test.cc, which come from the pinned
// jwm-robotstxt sdist into .cache/, never from this repository.
// The recording side of capture_google.h, and the test program's main: runs
// every gtest test, then writes the recorded calls and each test's outcome
// as JSON to the file named by argv[1].
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "robots.h"

namespace googlebot {
std::string GetPathParamsQuery(const std::string& url);
bool MaybeEscapePattern(const char* src, char** dst);
}  // namespace googlebot

namespace {

struct Record {
  std::string test, body, agent, url, what;
  bool allowed = false;
  bool skipped = false;
};

std::vector<Record>& Records() {
  static std::vector<Record> records;
  return records;
}

std::string CurrentTest() {
  const ::testing::TestInfo* info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "";
  return std::string(info->test_suite_name()) + "." + info->name();
}

std::string Hex(absl::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// JSON string escaping for agents, URLs and test names (bytes >= 0x80 are
// passed through: the suite's strings are UTF-8 source literals).
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

namespace googlebot {

void RepdiffRecordCall(absl::string_view body, absl::string_view agent,
                       const std::string& url, bool allowed) {
  Record r;
  r.test = CurrentTest();
  r.body = std::string(body);
  r.agent = std::string(agent);
  r.url = url;
  r.allowed = allowed;
  Records().push_back(r);
}

void RepdiffRecordSkip(const char* what) {
  Record r;
  r.test = CurrentTest();
  r.what = what;
  r.skipped = true;
  Records().push_back(r);
}

void RepdiffParseRobotsTxt(absl::string_view robots_body, RobotsParseHandler* handler) {
  RepdiffRecordSkip("ParseRobotsTxt with a parse callback (line numbers, BOM, sitemap)");
  ParseRobotsTxt(robots_body, handler);
}

std::string RepdiffGetPathParamsQuery(const std::string& url) {
  RepdiffRecordSkip("GetPathParamsQuery (internal)");
  return GetPathParamsQuery(url);
}

bool RepdiffMaybeEscapePattern(const char* src, char** dst) {
  RepdiffRecordSkip("MaybeEscapePattern (internal)");
  return MaybeEscapePattern(src, dst);
}

}  // namespace googlebot

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.json\n", argv[0]);
    return 2;
  }
  // Failing tests are recorded per test below; the exit status adds nothing.
  const int status = RUN_ALL_TESTS();
  (void)status;
  std::FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) return 2;
  std::string json = "{\"tests\":{";
  const ::testing::UnitTest* unit = ::testing::UnitTest::GetInstance();
  bool first = true;
  for (int i = 0; i < unit->total_test_suite_count(); ++i) {
    const ::testing::TestSuite* suite = unit->GetTestSuite(i);
    for (int j = 0; j < suite->total_test_count(); ++j) {
      const ::testing::TestInfo* info = suite->GetTestInfo(j);
      std::string name = std::string(suite->name()) + "." + info->name();
      json += (first ? "" : ",") + Quote(name) + ":" +
              (info->result()->Passed() ? "\"passed\"" : "\"failed\"");
      first = false;
    }
  }
  json += "},\"calls\":[";
  std::string skipped = "],\"skipped\":[";
  bool first_call = true, first_skip = true;
  for (const Record& r : Records()) {
    if (r.skipped) {
      skipped += (first_skip ? "" : ",") + std::string("{\"test\":") + Quote(r.test) +
                 ",\"what\":" + Quote(r.what) + "}";
      first_skip = false;
      continue;
    }
    json += (first_call ? "" : ",") + std::string("{\"test\":") + Quote(r.test) +
            ",\"body_hex\":\"" + Hex(r.body) + "\",\"agent_hex\":\"" + Hex(r.agent) +
            "\",\"url_hex\":\"" + Hex(r.url) + "\",\"allowed\":" +
            (r.allowed ? "true" : "false") + "}";
    first_call = false;
  }
  json += skipped + "]}";
  std::fputs(json.c_str(), out);
  std::fclose(out);
  return 0;
}
