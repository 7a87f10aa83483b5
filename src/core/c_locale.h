// The C locale for one thread while loom runs inside a host program (the Python module, the C API): a host's
// setlocale(LC_ALL, "de_DE.UTF-8") made printf-style formatting write "17,1 GB" and strtod stop at a '.'. The CLI never
// calls setlocale, so it always runs in the C locale.
#pragma once

#include <clocale>
#include <locale.h>

namespace loom {

/// While alive, this thread formats and parses numbers in the C locale (uselocale); the host's locale is restored.
class CLocaleScope {
 public:
  CLocaleScope() {
    static const locale_t c = ::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
    old_ = c ? ::uselocale(c) : static_cast<locale_t>(0);
  }
  ~CLocaleScope() {
    if (old_) ::uselocale(old_);
  }
  CLocaleScope(const CLocaleScope&) = delete;
  CLocaleScope& operator=(const CLocaleScope&) = delete;

 private:
  locale_t old_ = static_cast<locale_t>(0);
};

}  // namespace loom
