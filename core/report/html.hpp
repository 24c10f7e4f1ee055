// Text made safe for HTML and SVG: kernel names contain '<', '>', '&' and quotes
// (`void f<(ck::BlockGemmPipelineScheduler)0, ...>(...)`), and every one is written through here.
#pragma once

#include <string>
#include <string_view>

namespace kprof::report {

// Escapes & < > " ' for element content and double- or single-quoted attribute values (HTML
// Living Standard, "Escaping a string":
// https://html.spec.whatwg.org/multipage/parsing.html#escapingString escapes &, nbsp and " in
// attributes, &, nbsp, < and > in text; escaping all five is safe in both).
std::string escape(std::string_view s);

// `s` cut to at most `max` characters (an ellipsis at the end when cut), at a UTF-8 boundary.
std::string shorten(std::string_view s, size_t max);

}  // namespace kprof::report
