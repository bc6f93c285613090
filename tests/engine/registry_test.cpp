// The registry of labeling algorithms (ccl/algorithms.def) against everything that
// lists the algorithms by hand: the table of docs/ARCHITECTURE.md, the labeler files,
// and the names that parse() accepts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "ccl/types.h"

namespace {

const std::filesystem::path kSource = CCL_SOURCE_ROOT;

/// The nicks and files of the rows "| `nick` | `labelers/file.cu` | ..." of the table.
std::vector<std::pair<std::string, std::string>> documented() {
  std::ifstream in(kSource / "docs" / "ARCHITECTURE.md");
  EXPECT_TRUE(in.good());
  const std::regex row(R"(^\| `([a-z0-9-]+)` \| `(labelers/[a-z0-9_]+\.cu)` \|)");
  std::vector<std::pair<std::string, std::string>> rows;
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, row)) rows.emplace_back(m[1], m[2]);
  return rows;
}

std::string file_of(const std::string& nick) {
  std::string file = nick;
  for (char& c : file)
    if (c == '-') c = '_';
  return "labelers/" + file + ".cu";
}

TEST(Registry, NamesAreUniqueAndParse) {
  std::set<std::string> nicks;
  for (size_t i = 0; i < ccl::algorithms().size(); ++i) {
    const ccl::AlgorithmInfo& a = ccl::algorithms()[i];
    EXPECT_EQ(size_t(a.id), i) << a.nick;
    EXPECT_TRUE(nicks.insert(a.nick).second) << a.nick;
    EXPECT_STREQ(ccl::to_string(a.id), a.nick);
    EXPECT_EQ(&ccl::info(a.id), &a);
    ccl::Algorithm parsed{};
    ASSERT_TRUE(ccl::parse(a.nick, &parsed)) << a.nick;
    EXPECT_EQ(parsed, a.id);
    EXPECT_GT(std::string(a.title).size(), 0u);
    EXPECT_GT(std::string(a.description).size(), 0u);
  }
  ccl::Algorithm untouched = ccl::Algorithm::Komura;
  EXPECT_FALSE(ccl::parse("no-such-algorithm", &untouched));
  EXPECT_EQ(untouched, ccl::Algorithm::Komura);
  EXPECT_THROW(ccl::info(ccl::Algorithm(ccl::algorithms().size())), ccl::Error);
}

TEST(Registry, EveryAlgorithmHasItsFile) {
  for (const ccl::AlgorithmInfo& a : ccl::algorithms())
    EXPECT_TRUE(std::filesystem::exists(kSource / "kernels" / "cuda" / file_of(a.nick)))
        << a.nick << ": no kernels/cuda/" << file_of(a.nick);
}

TEST(Registry, ArchitectureTableListsExactlyTheRegistry) {
  const auto rows = documented();
  ASSERT_EQ(rows.size(), ccl::algorithms().size())
      << "docs/ARCHITECTURE.md's table of labeling algorithms and ccl/algorithms.def differ";
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].first, ccl::algorithms()[i].nick) << "row " << i + 1;
    EXPECT_EQ(rows[i].second, file_of(rows[i].first));
  }
}

}  // namespace
