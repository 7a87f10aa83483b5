#!/usr/bin/env bash
# Installs what loom needs from Debian's packages (run as root); does nothing for packages already present.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libeigen3-dev libyaml-cpp-dev libxgboost-dev libgtest-dev
      libbenchmark-dev nlohmann-json3-dev zlib1g-dev clang libclang-rt-14-dev python3
      pybind11-dev python3-dev python3-numpy python3-pandas  # the Python module (python/) and its tests (NumPy and
      # pandas input; python3-pandas with -pandas-lib, -tz and -dateutil: 38 MB by apt, 72 MB on disk)
      chromium chromium-driver nodejs)  # the last three: the HTML report's browser test (tests/cli/report_browser.sh)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "loom: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
