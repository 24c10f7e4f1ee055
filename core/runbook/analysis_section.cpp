// The runbook's analysis: and sim: sections.
#include "core/runbook/checks.hpp"
#include "core/runbook/parser.hpp"

namespace kprof::runbook::detail {

void Parser::analysis(const Entry& e, Analysis& a) {
  auto m = map(e, "analysis", k_analysis_keys);
  if (!m) return;
  read_optional_int(*m, "layers", a.layers, 1, 10000);
  read_optional_int(*m, "output_tokens", a.output_tokens, 1, 10'000'000);
  const Entry* f = m->find("families");
  if (!f) return;
  auto items = m_r.list(f->value, f->value_pos, "analysis.families");
  if (!items) return;
  std::vector<FamilyRule> rules;
  bool good = true;
  for (size_t i = 0; i < items->size(); ++i) {
    const YAML::Node& n = (*items)[i];
    const std::string path = "analysis.families[" + std::to_string(i) + "]";
    const SourcePos ip = n.IsNull() ? f->value_pos : m_r.pos_of(n.Mark());
    auto rm = m_r.map(n, ip, path, k_family_keys);
    if (!rm) {
      good = false;
      continue;
    }
    FamilyRule rule;
    const Entry* match = rm->find("match");
    const Entry* name = rm->find("family");
    if (!match) m_r.missing(*rm, "match", "add match: <regex searched in kernel names>");
    if (!name) m_r.missing(*rm, "family", "add family: <family name>");
    if (!match || !name) {
      good = false;
      continue;
    }
    auto re = m_r.string(match->value, match->value_pos, path + ".match");
    auto nm = m_r.string(name->value, name->value_pos, path + ".family");
    if (!re || !nm) {
      good = false;
      continue;
    }
    if (auto problem = detail::regex_problem(*re)) {
      m_r.error(match->value_pos, path + ".match: invalid regular expression: " + *problem,
                "ECMAScript std::regex syntax; escape literal characters with '\\'");
      good = false;
      continue;
    }
    if (nm->empty()) {
      m_r.error(name->value_pos, path + ".family: empty family name", "name the family, e.g. moe");
      good = false;
      continue;
    }
    set(rule.match, *re, *match);
    set(rule.family, *nm, *name);
    rules.push_back(std::move(rule));
  }
  if (good) set(a.families, std::move(rules), *f);
}

void Parser::sim(const Entry& e, Sim& s) {
  auto m = map(e, "sim", k_sim_keys);
  if (!m) return;
  s.present = true;
  if (const Entry* c = m->find("model")) {
    if (auto v = m_r.string(c->value, c->value_pos, "sim.model")) {
      const bool is_path = v->find('/') != std::string::npos ||
                           (v->size() > 5 && v->compare(v->size() - 5, 5, ".yaml") == 0);
      if (v->empty()) {
        m_r.error(c->value_pos, "sim.model: empty model",
                  "name a model in configs/sim or a .yaml path");
      } else if (!is_path) {
        set(s.model, *v, *c);  // a name in configs/sim, resolved by the test double
      } else if (auto p = read_path(*c, "sim.model")) {
        std::error_code ec;
        if (!fs::is_regular_file(*p, ec))
          m_r.error(
              c->value_pos, "sim.model: no such file '" + p->string() + "'",
              "fix the path (relative paths start at the runbook's folder) or name a model in "
              "configs/sim");
        else
          set(s.model, p->string(), *c);
      }
    }
  } else {
    m_r.missing(*m, "model", "add model: <name in configs/sim>");
  }
  if (const Entry* c = m->find("seed"))
    if (auto v = m_r.uint64(c->value, c->value_pos, "sim.seed")) set(s.seed, *v, *c);
}

}  // namespace kprof::runbook::detail
