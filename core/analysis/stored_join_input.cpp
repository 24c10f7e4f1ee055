// The join's rows read from the capture database (analysis_db.hpp stored_join_input): what lets a
// first `kprof export --perfetto` join counter passes without loading the capture (issue #16).
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <unordered_map>

#include "core/analysis/analysis_db.hpp"

namespace kprof::analysis {
namespace {

// A launch configuration as the join compares it.
struct Identity {
  uint32_t name = 0;
  int64_t grid = 0, wg = 0;
};

class StoredJoinInput final : public JoinInput {
 public:
  StoredJoinInput(store::CaptureDb& db, const PassCount& pass, NameTable& names)
      : m_db(db), m_pass(pass) {
    // Names are resolved once per variant (a few hundred), never per row.
    for_each_shape(db, pass.pass_id, [&](int64_t id, KernelShape s, const std::string& name) {
      m_identity.emplace(id, Identity{names.intern(name), s.grid_product(), s.wg_product()});
    });
  }

  std::unique_ptr<Cursor> rows() const override { return std::make_unique<Rows>(*this); }

 private:
  // Through the index dispatches_by_key (pass_id, pid, dispatch_id)
  // (core/store/schema/0005_kernel_variants.sql): no query sorts.
  class Rows final : public Cursor {
   public:
    explicit Rows(const StoredJoinInput& in)
        : m_in(in),
          m_q(in.m_db.sql(),
              "SELECT dispatch_id, variant_id, pid, agent, start_ns, end_ns FROM dispatch_rows "
              "WHERE pass_id = ? ORDER BY pid, dispatch_id") {
      m_q.bind(1, in.m_pass.pass_id);
    }
    bool next(JoinRow& r) override {
      while (m_q.executeStep()) {
        const auto it = m_in.m_identity.find(m_q.getColumn(1).getInt64());
        if (it == m_in.m_identity.end()) continue;  // the foreign key forbids it
        r.dispatch_id = m_q.getColumn(0).getInt64();
        r.pid = detail::stored_pid(m_in.m_db, static_cast<int>(m_in.m_pass.ordinal),
                                   m_q.getColumn(2).getInt64());
        r.agent = m_q.getColumn(3).getInt64();
        r.start_ns = m_q.getColumn(4).getInt64();
        r.end_ns = m_q.getColumn(5).getInt64();
        r.name = it->second.name;
        r.grid = it->second.grid;
        r.wg = it->second.wg;
        return true;
      }
      return false;
    }

   private:
    const StoredJoinInput& m_in;
    SQLite::Statement m_q;
  };

  store::CaptureDb& m_db;
  PassCount m_pass;
  std::unordered_map<int64_t, Identity> m_identity;  // kernel_variants.id -> identity
};

}  // namespace

std::unique_ptr<JoinInput> stored_join_input(store::CaptureDb& db, const PassCount& pass,
                                             NameTable& names) {
  return std::make_unique<StoredJoinInput>(db, pass, names);
}

}  // namespace kprof::analysis
