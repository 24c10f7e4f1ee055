// Typed readers of the runbook parser: booleans, strings, integers, regexes, name lists, paths.
#include "core/runbook/checks.hpp"
#include "core/runbook/parser.hpp"

namespace kprof::runbook::detail {

LocatedStrings located_strings(const std::vector<Reader::Item>& items, const Entry& e) {
  LocatedStrings out;
  out.pos = e.value_pos;
  out.from_file = true;
  for (const auto& i : items) out.value.push_back(LocatedString{i.value, i.pos, true});
  return out;
}

void Parser::read_bool(const Map& m, std::string_view key, Located<bool>& out) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.boolean(e->value, e->value_pos, join_path(m.path, key))) set(out, *v, *e);
}

void Parser::read_string(const Map& m, std::string_view key, LocatedString& out) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.string(e->value, e->value_pos, join_path(m.path, key))) set(out, *v, *e);
}

void Parser::read_int(const Map& m, std::string_view key, Located<int>& out, int min, int max) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.integer(e->value, e->value_pos, join_path(m.path, key), min, max))
      set(out, static_cast<int>(*v), *e);
}

void Parser::read_optional_int(const Map& m, std::string_view key, Located<std::optional<int>>& out,
                               int min, int max) {
  if (const Entry* e = m.find(key))
    if (auto v = m_r.integer(e->value, e->value_pos, join_path(m.path, key), min, max))
      set(out, std::optional<int>(static_cast<int>(*v)), *e);
}

void Parser::read_regex(const Map& m, std::string_view key,
                        Located<std::optional<std::string>>& out) {
  const Entry* e = m.find(key);
  if (!e) return;
  const std::string path = join_path(m.path, key);
  auto v = m_r.string(e->value, e->value_pos, path);
  if (!v) return;
  if (auto problem = detail::regex_problem(*v)) {
    m_r.error(e->value_pos, path + ": invalid regular expression: " + *problem,
              "rocprofv3 uses ECMAScript std::regex syntax; escape literal characters with '\\'");
    return;
  }
  set(out, std::optional<std::string>(*v), *e);
}

std::optional<LocatedStrings> Parser::read_names(const Entry& e, const std::string& path,
                                                 std::string_view what) {
  auto items = m_r.strings(e.value, e.value_pos, path);
  if (!items) return std::nullopt;
  bool good = true;
  for (size_t i = 0; i < items->size(); ++i) {
    const auto& item = (*items)[i];
    const std::string ipath = path + "[" + std::to_string(i) + "]";
    if (item.value.empty()) {
      m_r.error(item.pos, ipath + ": empty " + std::string(what) + " name", "remove the item");
      good = false;
      continue;
    }
    if (item.value.find_first_of(", \t") != std::string::npos) {
      m_r.error(item.pos, ipath + ": '" + item.value + "' holds several names",
                "write one " + std::string(what) + " per list item");
      good = false;
      continue;
    }
    for (size_t j = 0; j < i; ++j) {
      if ((*items)[j].value == item.value) {
        m_r.error(item.pos, ipath + ": '" + item.value + "' is listed twice",
                  "first at line " + std::to_string((*items)[j].pos.line) + "; keep one");
        good = false;
        break;
      }
    }
  }
  if (!good) return std::nullopt;
  return located_strings(*items, e);
}

std::optional<fs::path> Parser::read_path(const Entry& e, const std::string& path,
                                          const fs::path& base) {
  auto v = m_r.string(e.value, e.value_pos, path);
  if (!v) return std::nullopt;
  if (v->empty()) {
    m_r.error(e.value_pos, path + ": empty path", "write a path, relative to the runbook's folder");
    return std::nullopt;
  }
  if ((*v)[0] == '~') {
    m_r.error(e.value_pos, path + ": '~' is not expanded in runbooks",
              "write an absolute path or one relative to the runbook's folder");
    return std::nullopt;
  }
  fs::path p(*v);
  if (p.is_relative()) p = (base.empty() ? m_dir : base) / p;
  p = p.lexically_normal();
  // "sub/deeper/.." normalises to "sub/"; keep one spelling per folder.
  if (p.has_relative_path() && p.filename().empty()) p = p.parent_path();
  return p;
}

}  // namespace kprof::runbook::detail
