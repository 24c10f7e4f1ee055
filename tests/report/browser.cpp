#include "tests/report/browser.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kprof::report::test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs before anything else on the page (first in <head>): records script errors, failed loads
// and CSP violations; after `load`, measures the layout and counts the marks, and writes the
// result into the page as JSON, where --dump-dom returns it.
const char* const k_check = R"js(<script>
window.kprofErrors = [];
window.addEventListener('error', e => kprofErrors.push(String(e.message ||
    (e.target && (e.target.src || e.target.href)) || 'error')), true);
document.addEventListener('securitypolicyviolation',
    e => kprofErrors.push('CSP ' + e.violatedDirective + ' ' + e.blockedURI));
window.addEventListener('load', () => {
  const vw = document.documentElement.clientWidth;
  const over = [];
  const where = el => el.tagName + ' "' + (el.textContent || '').slice(0, 60) + '"';
  if (document.documentElement.scrollWidth > vw)
    over.push('page is ' + document.documentElement.scrollWidth + ' px wide at ' + vw);
  for (const el of document.querySelectorAll('h1, h2, h3, p, dt, dd, th, td, code, table, svg.chart, .notes')) {
    if (el.tagName !== 'svg' && el.tagName !== 'TABLE' && el.scrollWidth > el.clientWidth + 1)
      over.push(where(el) + ' overflows its box (' + el.scrollWidth + ' > ' + el.clientWidth + ')');
    if (el.getBoundingClientRect().right > vw + 0.5) over.push(where(el) + ' extends past the page');
  }
  for (const t of document.querySelectorAll('svg.chart text')) {
    const vb = t.ownerSVGElement.viewBox.baseVal, b = t.getBBox();
    if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 ||
        b.y + b.height > vb.y + vb.height + 0.5)
      over.push('chart text "' + t.textContent + '" outside its chart');
  }
  const n = s => document.querySelectorAll(s).length;
  let banner_sections = 0;
  for (const s of document.querySelectorAll('section'))
    if (s.querySelector(':scope > .simulated-banner')) ++banner_sections;
  const out = {errors: kprofErrors, overflow: over, sections: n('section'),
    banner_sections: banner_sections, banners: n('.simulated-banner'),
    bars: n('svg.families .bar'), slices: n('svg.timeline .slice'),
    timeline_rows: n('svg.timeline text.label'), points: n('svg.roofline .roof-point'),
    mixed_points: n('svg.roofline .roof-point.mixed'),
    above_peak_points: n('svg.roofline .roof-point.above-peak'),
    above_peak_rows: n('tr.above-peak'), roofs: n('svg.roofline .roof'),
    point_labels: n('svg.roofline .roof-point .point-label'),
    // Where each roofline point and the memory roof are drawn (SVG user units, y down).
    roof_points: [...document.querySelectorAll('svg.roofline .roof-point')].map(g => {
      const b = g.querySelector('circle, rect').getBBox();
      return {title: g.querySelector('title').textContent, phase: g.dataset.phase,
              x: b.x + b.width / 2, y: b.y + b.height / 2};
    }),
    memory_roof: [...document.querySelectorAll('svg.roofline line.roof.memory')].map(l =>
      [l.x1.baseVal.value, l.y1.baseVal.value, l.x2.baseVal.value, l.y2.baseVal.value]),
    title: document.title, width: vw};
  const pre = document.createElement('pre');
  pre.id = 'kprof-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>)js";

}  // namespace

Rendered render(const fs::path& html, const fs::path& work_dir, int budget_s) {
  Rendered r;
  std::string page = slurp(html);
  // Allow the check script and nothing else the policy forbids.
  const std::string csp = "default-src 'none';";
  const auto at = page.find(csp);
  if (at == std::string::npos) {
    ADD_FAILURE() << html << " has no Content-Security-Policy";
    return r;
  }
  page.replace(at, csp.size(), "default-src 'none'; script-src 'unsafe-inline';");
  const auto head = page.find("<head>");
  if (head == std::string::npos) {
    ADD_FAILURE() << html << " has no <head>";
    return r;
  }
  page.insert(head + 6, k_check);
  const fs::path checked = work_dir / "checked.html", dom = work_dir / "dom.html",
                 err = work_dir / "chromium.log", profile = work_dir / "chromium-profile";
  std::ofstream(checked, std::ios::binary) << page;
  fs::remove_all(profile);
  // The flags: headless, no sandbox (containers have no user namespaces), no GPU,
  // no first-run UI, a fresh profile; logging to stderr so console messages can be read.
  const std::string cmd = "timeout " + std::to_string(budget_s) +
                          " chromium --headless --no-sandbox --disable-gpu --no-first-run"
                          " --user-data-dir=" +
                          profile.string() +
                          " --window-size=1280,900 --enable-logging=stderr --v=0 --dump-dom"
                          " file://" +
                          checked.string() + " > " + dom.string() + " 2> " + err.string();
  const int rc = std::system(cmd.c_str());
  const std::string log = slurp(err);
  r.diagnostics = cmd + "\n" + log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.find(":CONSOLE") != std::string::npos) r.console += line + "\n";
  if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
    ADD_FAILURE() << "chromium failed (exit " << (WIFEXITED(rc) ? WEXITSTATUS(rc) : -1)
                  << "; 124 = over the " << budget_s
                  << " s budget, 127 = not installed: run scripts/bootstrap)\n"
                  << r.diagnostics;
    return r;
  }
  const std::string out = slurp(dom);
  const std::string open = "<pre id=\"kprof-check\">";
  const auto b = out.find(open);
  const auto e = b == std::string::npos ? b : out.find("</pre>", b);
  if (e == std::string::npos) {
    ADD_FAILURE() << "the check script wrote nothing\n" << r.diagnostics;
    return r;
  }
  std::string json = out.substr(b + open.size(), e - b - open.size());
  // --dump-dom serializes text content with &, <, > escaped.
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                 {"&gt;", ">"},
                                 {"&quot;", "\""},
                                 {"&amp;", "&"}}) {
    for (size_t at2 = json.find(from); at2 != std::string::npos; at2 = json.find(from, at2 + 1))
      json.replace(at2, from.size(), to);
  }
  r.check = nlohmann::json::parse(json);
  return r;
}

}  // namespace kprof::report::test
