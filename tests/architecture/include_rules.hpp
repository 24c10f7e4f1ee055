// The include rules of ARCHITECTURE.md, checked on a source tree: the table "Folders and who may
// include whom" is read from the file itself, so the document and the check cannot drift apart.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kprof::architecture {

// Every include of `root`'s core/ and apps/ sources that the table of `root`/ARCHITECTURE.md
// forbids, as "core/store/x.cpp:12: includes core/analysis/y.hpp; core/store may use: base", and
// every source folder the table does not list. Empty when the tree keeps the rules.
std::vector<std::string> include_violations(const std::filesystem::path& root);

// Every place in `root`'s core/ and apps/ sources that runs SQL outside the folders that
// ARCHITECTURE.md's "SQL runs in" rule names: an include of SQLite (<sqlite3.h>, <SQLiteCpp/...>)
// or, in core/, a string literal that starts an SQL statement ("SELECT ", "INSERT INTO ", ...); and
// every folder the rule names in which nothing does. Empty when the text and the tree agree.
std::vector<std::string> sql_violations(const std::filesystem::path& root);

// Every line of `root`'s code and configs (core, apps, tests, bench, configs, runbooks, scripts)
// that cites the team's private notes ("facts/...md", "(facts 1.2)") instead of an upstream source,
// as "path:line: text". This folder (tests/architecture) is left out: it names the pattern.
std::vector<std::string> private_citations(const std::filesystem::path& root);

// The same lines that name a path outside the checkout: the team's folder beside it ("../shared",
// KPROF_SHARED_DIR) or a development machine's ("/work/"). Tests read tests/data instead.
std::vector<std::string> outside_paths(const std::filesystem::path& root);

}  // namespace kprof::architecture
