// The join's rows read from the capture database (analysis_db.hpp stored_join_input): what lets a
// first `kprof export --perfetto` join counter passes without loading the capture.
#include "core/analysis/join/analysis_db.hpp"

namespace kprof::analysis {
namespace {

// The pass's rows through the loader's own reader (StoredDispatchReader), each as the join sees
// it; the pass keeps only its launch configurations and lanes.
class StoredJoinInput final : public JoinInput {
 public:
  StoredJoinInput(store::CaptureDb& db, const PassCount& pass, NameTable& names) : m_db(db) {
    m_pass.pass_id = pass.pass_id;
    m_pass.ordinal = static_cast<int>(pass.ordinal);
    m_shape_of = read_stored_shapes(db, m_pass, names);
  }

  std::unique_ptr<Cursor> rows() const override {
    class Rows final : public Cursor {
     public:
      Rows(store::CaptureDb& db, PassData& pass, const StoredShapes& shape_of)
          : m_pass(pass), m_reader(db, pass, shape_of) {}
      bool next(JoinRow& r) override {
        Dispatch d;
        if (!m_reader.next(d)) return false;
        r = JoinRow::of(m_pass, d);
        return true;
      }

     private:
      const PassData& m_pass;
      StoredDispatchReader m_reader;
    };
    return std::make_unique<Rows>(m_db, m_pass, m_shape_of);
  }

 private:
  store::CaptureDb& m_db;
  mutable PassData m_pass;  // its lanes are interned as rows are read
  StoredShapes m_shape_of;
};

}  // namespace

std::unique_ptr<JoinInput> stored_join_input(store::CaptureDb& db, const PassCount& pass,
                                             NameTable& names) {
  return std::make_unique<StoredJoinInput>(db, pass, names);
}

}  // namespace kprof::analysis
