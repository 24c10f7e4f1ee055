// Text from a capture (kernel names, `--sql` results) made safe to print on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace kprof {

// `s` with C0 control characters (a byte below 0x20: ESC, CR, newline, ...), DEL and the C1
// controls U+0080..U+009F (UTF-8 C2 80..C2 9F, which some terminals also obey: ECMA-48, section
// 5.3, CSI as 0x9B) written as \xHH or \u00HH. Everything else, UTF-8 included, is kept.
std::string terminal_safe(std::string_view s);

}  // namespace kprof
