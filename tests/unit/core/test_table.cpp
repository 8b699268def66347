// core/table.hpp: a header and its rows come from one column list, with the
// same alignment and width; precision applies to the rows alone; a free-text
// last column follows two spaces; the indent starts every line.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/table.hpp"

namespace gc {
namespace {

TEST(Table, HeaderAndRowsShareWidths) {
  const Table t({{"name", "<6"}, {"count", ">7"}, {"time_s", ">9.4f"}, {"check", ""}});
  EXPECT_EQ(t.header(), "name     count    time_s  check\n");
  EXPECT_EQ(t.row("ld", std::uint64_t{42}, 0.5, "OK"), "ld          42    0.5000  OK\n");
  EXPECT_EQ(t.row(std::string("nsr-agg"), -3, 12.25, "FAILED: x"),
            "nsr-agg      -3   12.2500  FAILED: x\n");
}

TEST(Table, Indent) {
  const Table t({{"rank", ">6"}, {"avg", ">8.1f"}}, "  ");
  EXPECT_EQ(t.header(), "    rank      avg\n");
  EXPECT_EQ(t.row(3, 2.25), "       3      2.2\n");
}

TEST(Table, RowNeedsOneValuePerColumn) {
  const Table t({{"a", ">3"}, {"b", ">3"}});
  EXPECT_THROW(t.row(1), Error);
}

}  // namespace
}  // namespace gc
