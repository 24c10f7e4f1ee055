// A captures folder belongs to one capture database. Pass folders are named run-N/pass-K, and a
// pass's folder is emptied before each attempt, so two databases writing into one captures folder
// would delete each other's raw files. The first run writes a marker file in the folder naming
// its database; a run of another database is refused before anything is written.
#pragma once

#include <filesystem>
#include <optional>

namespace kprof::exec {

// The marker's file name inside a captures folder.
inline constexpr const char* k_captures_marker = ".kprof-database";

// The database the marker in `captures` names; nullopt when there is no marker.
std::optional<std::filesystem::path> captures_owner(const std::filesystem::path& captures);

// Creates `captures` and marks it as `database`'s, or checks that it is. Throws Error(input)
// naming both databases and a fix when the marker names another database that still exists (a
// marker whose database is gone, moved or deleted, is taken over: its pass folders serve no other
// database). A folder without a marker (made by an older kprof) is marked as this database's.
void claim_captures(const std::filesystem::path& captures, const std::filesystem::path& database);

// The check of claim_captures alone, writing nothing: a run calls it before it creates its
// database, and claims the folder once the database opened (a refused database leaves no folder).
void check_captures_free(const std::filesystem::path& captures,
                         const std::filesystem::path& database);

}  // namespace kprof::exec
