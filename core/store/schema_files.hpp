// The migration files of core/store/schema/, compiled in by embed_schema.cmake. Internal to store.
#pragma once

#include <cstdint>
#include <vector>

namespace kprof::store {

struct SchemaFile {
  int64_t version;   // NNNN of NNNN_name.sql
  const char* name;  // the file name, for error messages
  const char* sql;   // its text
};

// In ascending version order; versions are 1, 2, 3, ... without gaps (checked on open).
const std::vector<SchemaFile>& schema_files();

}  // namespace kprof::store
