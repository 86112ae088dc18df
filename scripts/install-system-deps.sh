#!/bin/sh
# Installs the Debian packages fray's tests and benchmarks use beside Python's: headless
# Chromium and its driver (the HTML report opened in a browser) and SimGrid's Python
# bindings (a peer of the benchmarks). Does nothing when they are all installed.
set -eu

PACKAGES="chromium chromium-driver python3-simgrid"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "install-system-deps: missing$missing; run as root: sudo sh $0" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # one argument per package
if ! apt-get install -y --no-install-recommends $missing; then
    apt-get update
    apt-get install -y --no-install-recommends $missing
fi
