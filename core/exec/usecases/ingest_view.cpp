#include "core/exec/usecases/ingest_view.hpp"

#include <filesystem>
#include <sstream>

#include "core/base/table.hpp"

namespace kprof::exec {

std::string ingest_text(const IngestReport& report, const std::string& db, size_t width) {
  std::ostringstream o;
  for (const auto& run : report.runs) {
    o << "run " << run.id << " '" << run.name << "' in " << db
      << (run.simulated ? " (simulated: agents say so)" : " (measured)") << "\n";
    for (const auto& pass : run.passes) {
      o << "pass " << pass.ordinal << " (" << store::to_string(pass.kind) << ") " << pass.folder
        << "\n";
      if (!pass.action.empty()) o << "  " << pass.action << "\n";
      Table files;
      files.columns = {"file", "kind", "rows_read", "rejected"};
      for (const auto& r : pass.files)
        files.rows.push_back({std::filesystem::path(r.path).filename().string(), r.kind,
                              static_cast<int64_t>(r.rows_read),
                              static_cast<int64_t>(r.rows_rejected)});
      render_text(o, files, TextLayout{width, false});
    }
  }
  for (const auto& n : report.notes) o << "note: " << n << "\n";
  for (const auto& s : report.skipped) o << "skipped (not a format kprof reads): " << s << "\n";
  if (report.rejected > 0)
    o << report.rejected << " bad rows were skipped (see ingest_stats; --strict fails instead)\n";
  return o.str();
}

}  // namespace kprof::exec
