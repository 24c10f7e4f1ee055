#include "core/analysis/views/brief.hpp"

#include <map>
#include <set>

#include "core/base/table.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {
namespace {

constexpr size_t k_max_arg = 16;    // columns per shown template argument
constexpr size_t k_max_args = 3;    // template arguments shown at most
constexpr size_t k_max_ident = 32;  // longer identifiers are shown by their differing fields

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

std::string shorten(std::string s) {
  s = std::string(trim(s));
  if (display_width(s) <= k_max_arg) return s;
  return s.substr(0, k_max_arg / 2) + "…" + s.substr(s.size() - (k_max_arg / 2 - 1));
}

}  // namespace

NameParts split_kernel_name(const std::string& n) {
  NameParts out;
  // Skip "(anonymous namespace)" and find the first '<' or '(' outside brackets that follows an
  // identifier: the function's template list or parameter list.
  int paren = 0;
  size_t open = std::string::npos;
  for (size_t i = 0; i < n.size(); ++i) {
    if (n.compare(i, 21, "(anonymous namespace)") == 0) {
      i += 20;
      continue;
    }
    const char c = n[i];
    if (c == '(' && paren == 0 && i > 0 && ident_char(n[i - 1])) {
      open = i;
      break;
    }
    if (c == '<' && paren == 0 && i > 0 && ident_char(n[i - 1])) {
      open = i;
      break;
    }
    if (c == '(') ++paren;
    if (c == ')') --paren;
  }
  const size_t end_ident = open == std::string::npos ? n.size() : open;
  size_t b = end_ident;
  while (b > 0 && ident_char(n[b - 1])) --b;
  out.identifier = n.substr(b, end_ident - b);
  if (open == std::string::npos || n[open] != '<') return out;
  int depth = 0, par = 0;
  std::string arg;
  for (size_t i = open + 1; i < n.size(); ++i) {
    const char c = n[i];
    if (c == '(') ++par;
    if (c == ')') --par;
    if (par == 0 && c == '<') ++depth;
    if (par == 0 && c == '>') {
      if (depth == 0) {
        out.template_args.push_back(std::string(trim(arg)));
        return out;
      }
      --depth;
    }
    if (par == 0 && depth == 0 && c == ',') {
      out.template_args.push_back(std::string(trim(arg)));
      arg.clear();
      continue;
    }
    arg += c;
  }
  out.template_args.clear();  // unbalanced: no template arguments we can trust
  return out;
}

std::vector<std::string> brief_kernel_names(const std::vector<std::string>& full,
                                            const std::vector<std::string>& family) {
  std::vector<std::string> out(full.size());
  std::map<std::string, std::vector<size_t>> members;  // family -> rows with distinct names
  std::map<std::string, std::set<std::string>> seen;
  for (size_t i = 0; i < full.size(); ++i)
    if (seen[family[i]].insert(full[i]).second) members[family[i]].push_back(i);
  std::vector<NameParts> parts(full.size());
  for (size_t i = 0; i < full.size(); ++i) parts[i] = split_kernel_name(full[i]);
  std::map<std::string, std::string> by_full;
  for (const auto& [fam, rows] : members) {
    if (rows.size() == 1) {
      by_full[full[rows[0]]] = fam;
      continue;
    }
    std::set<std::string> idents;
    size_t longest = 0;
    for (size_t r : rows) {
      idents.insert(parts[r].identifier);
      longest = std::max(longest, parts[r].identifier.size());
    }
    const bool by_ident = idents.size() > 1 && !idents.count("");
    // Long generated identifiers (hipBLASLt's Cijk_..._MT128x128x64_..._WG32_8_1) differ in a
    // few '_'-separated fields: show those after the family.
    std::vector<std::vector<std::string>> tokens;
    for (size_t r : rows) tokens.push_back(split(parts[r].identifier, '_'));
    std::map<std::string, int> used;
    std::vector<std::string> names;
    for (size_t k = 0; k < rows.size(); ++k) {
      const size_t r = rows[k];
      std::string name = fam;
      if (by_ident && longest <= k_max_ident) {
        name = parts[r].identifier;
      } else if (by_ident) {
        std::vector<std::string> fields;
        for (size_t f = 0; f < tokens[k].size() && fields.size() < k_max_args; ++f) {
          bool differs = false;
          for (const auto& other : tokens)
            differs |= other.size() == tokens[k].size() && other[f] != tokens[k][f];
          if (differs) fields.push_back(shorten(tokens[k][f]));
        }
        if (!fields.empty()) name += "[" + join(fields, ",") + "]";
      }
      std::vector<std::string> shown;
      const auto& mine = parts[r].template_args;
      for (size_t a = 0; a < mine.size() && shown.size() < k_max_args; ++a) {
        bool differs = false;
        for (size_t o : rows) {
          const auto& theirs = parts[o].template_args;
          if (theirs.size() == mine.size() && theirs[a] != mine[a]) differs = true;
        }
        if (differs) shown.push_back(shorten(mine[a]));
      }
      if (!shown.empty()) name += "<" + join(shown, ",") + ">";
      names.push_back(name);
      ++used[name];
    }
    std::map<std::string, int> nth;
    for (size_t k = 0; k < rows.size(); ++k) {
      std::string name = names[k];
      if (used[name] > 1) name += " #" + std::to_string(++nth[name]);
      by_full[full[rows[k]]] = name;
    }
  }
  for (size_t i = 0; i < full.size(); ++i) out[i] = by_full[full[i]];
  return out;
}

}  // namespace kprof::analysis
