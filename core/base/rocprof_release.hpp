// rocprofv3's command line, release by release: every option of one upstream launcher's argparse
// parser (spellings, nargs, choices, action kind), read from configs/rocprofv3/<release>.json.
// The tables describe upstream's `rocprofv3.py` (the `source` of each file names the
// repository, commit and path it was read from); kprof builds its command lines from them, and the
// test double parses its argv with them, so neither keeps a list of its own.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// argparse's nargs: none (one value), 0 (a flag), '?', '*', '+', or an exact count.
struct RocprofOption {
  std::vector<std::string> names;  // "-f", "--output-format"
  std::string dest;                // "output_format"
  enum class Nargs { one, zero, optional, star, plus, exactly };
  Nargs nargs = Nargs::one;
  int count = 1;                     // Nargs::exactly
  std::vector<std::string> choices;  // empty: any value
  std::string kind;                  // "_StoreAction", "_AppendAction", "booleanArgAction", ...
  std::string label() const;         // argparse's "-f/--output-format"
  bool has_choice(std::string_view value) const;
};

struct RocprofRelease {
  std::string name;          // "6.4", "7.0", "latest"
  std::array<int, 3> sdk{};  // the rocprofiler-sdk version the launcher reports
  std::string rocm;          // "6.4", "10.0"
  std::string source;        // "ROCm/rocm-systems 01610ac projects/rocprofiler-sdk/..."
  std::vector<RocprofOption> options;
  // The launcher reads its input file (-i) before it reports unrecognized arguments (seen of
  // 6.4's: its argv with -i and an unknown option ends in the input file's error).
  bool reads_input_before_argument_errors = false;

  const RocprofOption* find(std::string_view spelling) const;
  const RocprofOption* find_dest(std::string_view dest) const;
  bool has(std::string_view spelling) const { return find(spelling) != nullptr; }
  // The first spelling of `dest` ("-f" before "--output-format"), or "" when the release lacks it.
  std::string spelling(std::string_view dest) const;
};

// Every table in configs/rocprofv3, oldest sdk first (a development tree after the release of the
// same sdk version). Loaded once; throws Error naming the file for a table it cannot read.
const std::vector<RocprofRelease>& rocprof_releases();

// The table named `name`, or nullptr.
const RocprofRelease* find_rocprof_release(std::string_view name);

// The table kprof plans with for a tool reporting `sdk`: the newest released table whose sdk is
// not newer (options are added release by release, so the older table's options exist in the
// newer tool); the oldest when `sdk` predates them all.
const RocprofRelease& rocprof_release_for_sdk(const std::array<int, 3>& sdk);

// The release whose option spellings all appear in `help` (what `rocprofv3 --help` printed), the
// one with the most options when several do; nullopt when none does.
const RocprofRelease* rocprof_release_from_help(std::string_view help);

}  // namespace kprof
