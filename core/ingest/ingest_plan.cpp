#include "core/ingest/ingest_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "core/base/text.hpp"

namespace kprof::ingest {

namespace fs = std::filesystem;

bool Invocation::has(Format f) const {
  return std::any_of(files.begin(), files.end(),
                     [&](const InputFile& x) { return x.format == f && !x.context; });
}

std::string output_prefix(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  std::string stem = name;
  for (const char* ext : {".csv", ".db", ".json"})
    if (stem.size() > std::string(ext).size() &&
        stem.compare(stem.size() - std::string(ext).size(), std::string::npos, ext) == 0)
      stem.resize(stem.size() - std::string(ext).size());
  std::string domain = domain_from_name(name);
  if (const auto f = format_from_name(name); f == Format::rocpd || f == Format::json)
    domain = "results";
  if (stem.size() >= domain.size() &&
      to_lower(stem.substr(stem.size() - domain.size())) == to_lower(domain)) {
    stem.resize(stem.size() - domain.size());
    if (!stem.empty() && (stem.back() == '_' || stem.back() == '-')) stem.pop_back();
    return stem;
  }
  return stem;
}

std::vector<Invocation> invocations_of(const Discovery& found) {
  std::map<std::tuple<int, std::string, std::string>, Invocation> by_key;
  for (const auto& pass : found.passes) {
    for (const auto& f : pass.files) {
      const std::string folder = fs::path(f.path).parent_path().string();
      const std::string prefix = output_prefix(f.path);
      auto& inv = by_key[{pass.number, folder, prefix}];
      inv.folder = folder;
      inv.prefix = prefix;
      inv.pass_number = pass.number;
      inv.files.push_back(f);
    }
  }
  std::vector<Invocation> out;
  for (auto& [key, inv] : by_key) out.push_back(std::move(inv));
  return out;
}

namespace {

std::string kinds_text(const Invocation& inv) {
  if (inv.traces() && inv.counts()) return "kernel trace + counters";
  if (inv.traces()) return "kernel trace";
  if (inv.counts()) return "counters";
  return "no kernel trace or counters";
}

// What tells an invocation apart from the others of its folder: its prefix, or for files split
// off by their rows, their own name.
const std::string& id_of(const Invocation& inv) { return inv.name.empty() ? inv.prefix : inv.name; }

std::string describe(const Invocation& inv) {
  return "invocation '" + (id_of(inv).empty() ? std::string("(no prefix)") : id_of(inv)) + "' in " +
         inv.folder + " (" + kinds_text(inv) + ")";
}

PassInput files_of(const Invocation& inv, bool counters_only, bool others_only) {
  PassInput p;
  p.number = inv.pass_number;
  p.folder = inv.folder;
  for (const auto& f : inv.files) {
    const bool is_counters = f.format == Format::counter_collection;
    if (counters_only && !is_counters && f.format != Format::agent_info) continue;
    if (others_only && is_counters) continue;
    InputFile x = f;
    // The counter pass of an invocation that also traced reads its agent_info only to resolve
    // "GPU N" ids; the agents are stored once, with the trace pass.
    if (counters_only && f.format == Format::agent_info) x.context = true;
    p.files.push_back(x);
  }
  return p;
}

void append(PassInput& to, const PassInput& from) {
  if (to.folder.empty()) to.folder = from.folder;
  to.files.insert(to.files.end(), from.files.begin(), from.files.end());
}

// Agent files first (readers resolve "GPU N" through them); otherwise discovery's order.
void order_files(PassInput& p) {
  std::stable_sort(p.files.begin(), p.files.end(), [](const InputFile& a, const InputFile& b) {
    return (a.format == Format::agent_info) > (b.format == Format::agent_info);
  });
}

// Adds one run made of `trace` (may be null) and the counter-only / other invocations given.
PlannedRun make_run(const Invocation* trace, const std::vector<const Invocation*>& counter_only,
                    const std::vector<const Invocation*>& others) {
  PlannedRun run;
  PlannedInput tp;
  tp.ordinal = 0;
  if (trace) {
    tp.input = files_of(*trace, false, true);
    tp.what = describe(*trace);
  }
  for (const auto* o : others) {
    append(tp.input, files_of(*o, false, false));
    if (tp.what.empty()) tp.what = describe(*o);
  }
  if (!tp.input.files.empty()) {
    order_files(tp.input);
    run.passes.push_back(tp);
  }
  if (trace && trace->counts()) {
    PlannedInput cp;
    cp.counters = true;
    cp.input = files_of(*trace, true, false);
    order_files(cp.input);
    cp.what = describe(*trace) + ", its counters";
    run.passes.push_back(cp);
  }
  for (const auto* c : counter_only) {
    PlannedInput cp;
    cp.counters = true;
    cp.input = files_of(*c, false, false);
    order_files(cp.input);
    cp.what = describe(*c);
    run.passes.push_back(cp);
  }
  return run;
}

// The trace invocation a counter-only or other invocation belongs with: the same prefix (same
// folder first), else the longest trace prefix its own prefix extends ("m8-evicted" for
// "m8-evicted-fetch"); nullptr when none.
const Invocation* owner_of(const Invocation& inv, const std::vector<const Invocation*>& traces) {
  if (inv.apart) return nullptr;
  const Invocation* best = nullptr;
  for (const auto* t : traces)
    if (!t->apart && t->prefix == inv.prefix && (!best || t->folder == inv.folder)) best = t;
  if (best) return best;
  for (const auto* t : traces) {
    if (t->apart) continue;
    const std::string& p = t->prefix;
    if (p.empty() || inv.prefix.size() <= p.size() || inv.prefix.compare(0, p.size(), p) != 0)
      continue;
    const char sep = inv.prefix[p.size()];
    if ((sep == '-' || sep == '_' || sep == '.') && (!best || p.size() > best->prefix.size()))
      best = t;
  }
  return best;
}

std::string common_root(const std::vector<Invocation>& invs) {
  if (invs.empty()) return {};
  fs::path root = invs.front().folder;
  for (const auto& inv : invs) {
    const fs::path f = inv.folder;
    while (!root.empty()) {
      const auto rel = f.lexically_relative(root);
      if (!rel.empty() && rel.native().rfind("..", 0) != 0) break;
      root = root.parent_path();
    }
  }
  return root.string();
}

std::string label_of(const Invocation& inv, const std::string& root) {
  std::string rel = fs::path(inv.folder).lexically_relative(root).string();
  if (rel == ".") rel.clear();
  if (id_of(inv).empty()) return rel.empty() ? std::string(".") : rel;
  return rel.empty() ? id_of(inv) : rel + "/" + id_of(inv);
}

bool agents_only(const Invocation& inv) {
  return std::all_of(inv.files.begin(), inv.files.end(),
                     [](const InputFile& f) { return f.format == Format::agent_info; });
}

// rocprofv3's default output prefix, `%pid%`: the files are of that one process.
bool pid_prefix(const std::string& prefix) {
  return !prefix.empty() &&
         std::all_of(prefix.begin(), prefix.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Kernel traces of several `%pid%` prefixes in one folder: separate runs of rocprofv3, or one run
// of a multi-process application, which writes one file set per process (the tool's default
// output file is %hostname%/<pid>: ROCm/rocprofiler-sdk source/lib/rocprofiler-sdk-tool/
// config.hpp). The names cannot tell them apart; the user can.
std::string processes_hint(const std::vector<const Invocation*>& traces) {
  std::map<std::string, int> per_folder;
  for (const auto* t : traces)
    if (pid_prefix(t->prefix)) ++per_folder[t->folder];
  for (const auto& [folder, n] : per_folder)
    if (n > 1)
      return ". If they are the processes of one multi-process run (tensor-parallel workers, "
             "torchrun ranks), load each folder as one pass of several processes (ranks): "
             "--pass-kind trace for the trace's, --pass-kind counters --run NAME for each "
             "counter pass's";
  return "";
}

// One run per capture. Every trace invocation is one, with the counter-only and other invocations
// of its prefix (owner_of); every other invocation is a capture of its own whatever files it
// holds (a stats-only or counter-only capture is a separate run, not a pass of another's).
// Invocations of agent_info alone describe the machine, not work: they go with the run of their
// own prefix, else they are left out with a note (under another prefix they are another
// invocation of the tool, and would give a run another process's machine).
void plan_captures(IngestPlan& plan, const std::vector<Invocation>& all,
                   const std::vector<const Invocation*>& traces,
                   const std::vector<const Invocation*>& counter_only,
                   const std::vector<const Invocation*>& others) {
  using Owned = std::pair<std::vector<const Invocation*>, std::vector<const Invocation*>>;
  std::map<const Invocation*, Owned> owned;
  std::vector<const Invocation*> alone, agents;
  for (const auto* c : counter_only) {
    if (const auto* t = owner_of(*c, traces))
      owned[t].first.push_back(c);
    else
      alone.push_back(c);
  }
  for (const auto* o : others) {
    if (const auto* t = owner_of(*o, traces))
      owned[t].second.push_back(o);
    else if (agents_only(*o))
      agents.push_back(o);
    else
      alone.push_back(o);
  }
  // Captures without a trace in path order, whatever files they hold.
  std::sort(alone.begin(), alone.end(), [](const Invocation* a, const Invocation* b) {
    return std::tie(a->folder, a->prefix) < std::tie(b->folder, b->prefix);
  });
  std::vector<const Invocation*> heads(traces);  // the invocation each run is named after
  heads.insert(heads.end(), alone.begin(), alone.end());
  if (heads.empty()) {  // agent files only, or nothing but pass folders: one run
    plan.runs.push_back(make_run(nullptr, {}, agents));
    return;
  }
  for (const auto* a : agents) {
    if (const Invocation* to = owner_of(*a, heads))
      owned[to].second.push_back(a);
    else
      plan.notes.push_back(
          describe(*a) +
          ": only the machine's description (agent_info), of no capture of its prefix: "
          "not loaded");
  }
  const std::string root = common_root(all);
  for (const auto* h : heads) {
    const Owned& o = owned[h];
    std::vector<const Invocation*> counters = o.first, rest = o.second;
    const bool trace = h->traces();
    if (!trace) {
      auto& into = h->counts() ? counters : rest;
      into.insert(into.begin(), h);
    }
    PlannedRun run = make_run(trace ? h : nullptr, counters, rest);
    if (heads.size() > 1) run.label = label_of(*h, root);
    plan.runs.push_back(std::move(run));
  }
  if (heads.size() == 1 && !traces.empty() && traces.front()->counts())
    plan.notes.push_back(describe(*traces.front()) +
                         ": the trace is pass 0 and its counters a counter pass of their own; "
                         "the join matches them by Dispatch_Id when both carry the same ids, "
                         "pids and times (one run), else it aligns them as separate runs");
  if (traces.size() > 1)
    plan.notes.push_back(std::to_string(traces.size()) +
                         " invocations wrote kernel traces: separate captures, loaded as " +
                         std::to_string(plan.runs.size()) +
                         " runs (counters go with the trace of their own prefix)" +
                         processes_hint(traces));
  else if (heads.size() > 1)
    plan.notes.push_back(
        std::to_string(heads.size()) + " invocations of their own output prefix or folder (" +
        std::to_string(traces.size()) + " with a kernel trace): separate captures, loaded as " +
        std::to_string(plan.runs.size()) + " runs");
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }
std::string file_stem(const std::string& path) { return fs::path(path).stem().string(); }

// An invocation whose prefix names no process may hold a kernel trace and counters of different
// programs or machines (files copied or renamed into one folder): each counter file whose rows
// rule out the trace's program or machine (capture_stamp.hpp) leaves it as an invocation of its
// own, apart from the trace. Cost: each counter file is read once more here (counter files are
// small); the trace is read only until it shows every counter file's agents and one of its
// kernels, unless a counter file is of another capture (then the trace is read to its end here, and
// again by the load).
void split_by_rows(std::vector<Invocation>& all, const StampReader& stamp,
                   std::vector<std::string>& notes) {
  std::vector<Invocation> split;
  for (auto& inv : all) {
    if (inv.pass_number > 0 || pid_prefix(inv.prefix) || !inv.has(Format::kernel_trace) ||
        !inv.counts())
      continue;
    std::optional<InputFile> trace;
    std::vector<InputFile> agents;
    for (const auto& f : inv.files) {
      if (f.format == Format::kernel_trace && !trace) trace = f;
      if (f.format == Format::agent_info) agents.push_back(f);
    }
    std::vector<CaptureStamp> counted;
    for (const auto& f : inv.files)
      if (f.format == Format::counter_collection) counted.push_back(stamp(f, agents, {}));
    const CaptureStamp of_trace = stamp(*trace, agents, counted);
    const std::string named = inv.prefix.empty()
                                  ? std::string("neither name has an output prefix")
                                  : "both names have the prefix '" + inv.prefix + "'";
    size_t at = 0;
    for (auto it = inv.files.begin(); it != inv.files.end();) {
      if (it->format != Format::counter_collection) {
        ++it;
        continue;
      }
      const std::vector<std::string> reasons = separate_capture_reasons(of_trace, counted[at++]);
      if (reasons.empty()) {
        notes.push_back(file_name(it->path) + " and " + file_name(trace->path) + " in " +
                        inv.folder + ": " + named +
                        ", the same agents and kernels: one program, loaded as one run (its "
                        "counters a counter pass; if they are separate invocations of that "
                        "program, the join aligns them)");
        ++it;
        continue;
      }
      notes.push_back(file_name(it->path) + " and " + file_name(trace->path) + " in " + inv.folder +
                      " are separate captures, although " + named + ": " + join(reasons, "; ") +
                      "; loaded as separate runs");
      Invocation apart;
      apart.folder = inv.folder;
      apart.prefix = inv.prefix;
      apart.apart = true;
      apart.name = file_stem(it->path);
      apart.files.push_back(*it);
      // The agents resolve its "GPU N" ids; which process they describe is not known, so they
      // are stored with the trace only.
      for (auto a : agents) {
        a.context = true;
        apart.files.push_back(a);
      }
      split.push_back(std::move(apart));
      inv.name = file_stem(trace->path);
      it = inv.files.erase(it);
    }
  }
  for (auto& inv : split) all.push_back(std::move(inv));
}

}  // namespace

IngestPlan plan_ingest(const Discovery& found, std::optional<store::PassKind> forced_kind,
                       const StampReader& stamp) {
  IngestPlan plan;
  if (forced_kind) {
    PlannedRun run;
    for (const auto& pass : found.passes) {
      PlannedInput p;
      p.counters = *forced_kind == store::PassKind::counters;
      if (pass.number > 0 || !p.counters) p.ordinal = pass.number;
      p.input = pass;
      p.what = "the files of " + pass.folder + " (--pass-kind " +
               (p.counters ? "counters" : "trace") + ")";
      run.passes.push_back(p);
    }
    plan.runs.push_back(std::move(run));
    return plan;
  }

  std::vector<Invocation> all = invocations_of(found);
  split_by_rows(all, stamp, plan.notes);
  std::vector<const Invocation*> traces, counter_only, others;
  std::map<int, std::vector<const Invocation*>> pass_folders;
  for (const auto& inv : all) {
    if (inv.pass_number > 0)
      pass_folders[inv.pass_number].push_back(&inv);
    else if (inv.traces())
      traces.push_back(&inv);
    else if (inv.counts())
      counter_only.push_back(&inv);
    else
      others.push_back(&inv);
  }
  plan_captures(plan, all, traces, counter_only, others);
  for (auto& [n, invs] : pass_folders) {
    PlannedInput p;
    p.ordinal = n;
    for (const auto* inv : invs) {
      append(p.input, files_of(*inv, false, false));
      p.counters |= inv->counts();
    }
    p.input.number = n;
    order_files(p.input);
    p.what = "pass folder " + p.input.folder;
    plan.runs.front().passes.push_back(std::move(p));
  }
  return plan;
}

}  // namespace kprof::ingest
