#include "core/analysis/table.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "core/base/error.hpp"

namespace kprof::analysis {
namespace {

Table sample(bool simulated) {
  Table t;
  t.title = "demo";
  t.run_id = 3;
  t.simulated = simulated;
  t.columns = {"kernel", "launches", "share"};
  t.rows = {{std::string("a,\"b\""), int64_t{6144}, 25.72}, {std::string("c"), int64_t{1}, Cell()}};
  t.notes = {"note"};
  return t;
}

TEST(Table, EveryFormatSaysWhetherTheRunWasSimulated) {
  std::ostringstream tab, csv, json;
  print(tab, sample(true), Format::table);
  print(csv, sample(true), Format::csv);
  print(json, sample(false), Format::json);
  EXPECT_NE(tab.str().find("# demo — run 3, SIMULATED"), std::string::npos);
  EXPECT_EQ(csv.str(), "simulated,kernel,launches,share\n1,\"a,\"\"b\"\"\",6144,25.72\n1,c,1,\n");
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["simulated"], false);
  EXPECT_EQ(j["rows"][0],
            nlohmann::json::parse(R"({"kernel": "a,\"b\"", "launches": 6144, "share": 25.72})"));
  EXPECT_TRUE(j["rows"][1]["share"].is_null());
}

TEST(Table, UnknownFormatIsAnInputError) {
  try {
    parse_format("jsn");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(e.diagnostics()[0].hint.find("json"), std::string::npos);
  }
}

}  // namespace
}  // namespace kprof::analysis
