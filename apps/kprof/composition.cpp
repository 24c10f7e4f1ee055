#include "apps/kprof/composition.hpp"

#include <utility>

namespace kprof::app {
namespace {

Composition& the_composition() {
  static Composition c;
  return c;
}

}  // namespace

const Composition& composition() { return the_composition(); }
void compose(Composition c) { the_composition() = std::move(c); }

}  // namespace kprof::app
