#!/usr/bin/env bash
# Installs Debian's chromium when it is missing: the live-query server's
# browser tests drive the demo page in it, headless.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-chromium: chromium is missing; run as root to install Debian's chromium" >&2
  exit 1
fi
echo "install-chromium: installing chromium" >&2
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
