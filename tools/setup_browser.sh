#!/usr/bin/env bash
# Installs what the browser test of `papersoccer serve` needs (not needed to build or for the
# default tests): Debian's chromium and fonts-liberation, node and npm when missing, and the
# pinned puppeteer-core of tests/browser/package-lock.json. Then: ctest --test-dir build -L browser
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(chromium fonts-liberation)
command -v node >/dev/null || PACKAGES+=(nodejs)
command -v npm >/dev/null || PACKAGES+=(npm)
. tools/apt_packages.sh
install_missing setup_browser "${PACKAGES[@]}"
# puppeteer-core 24 (25 needs node >= 22.12); it downloads no browser: the test uses /usr/bin/chromium.
(cd tests/browser && npm ci --no-audit --no-fund)
echo "setup_browser: ready; run: ctest --test-dir build -L browser --output-on-failure"
