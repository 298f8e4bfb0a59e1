#!/usr/bin/env bash
# Renders an eosim HTML report (or any local HTML file) to a PNG with headless Chromium, to look
# at it without a desktop. Not used by the tests or CI; needs `apt-get install chromium`.
#
#   tools/screenshot-report.sh REPORT.html [OUT.png] [WIDTH,HEIGHT]
#
# REPORT may also be a report folder (its index.html is used). Default OUT: REPORT's folder/report.png;
# default size 1400,2000.
set -euo pipefail

if (($# < 1 || $# > 3)); then
    sed -n '2,9s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
report=$1
if [[ -d $report ]]; then report=$report/index.html; fi
if [[ ! -f $report ]]; then
    echo "screenshot-report.sh: no such file: $report" >&2
    exit 2
fi
report=$(realpath "$report")
out=${2:-$(dirname "$report")/report.png}
size=${3:-1400,2000}

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $browser ]]; then
    echo "screenshot-report.sh: no Chromium found (apt-get install chromium)" >&2
    exit 2
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# No network, no first-run chores: the report is one self-contained file.
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="$size" \
    --screenshot="$(realpath -m "$out")" "file://$report" >/dev/null 2>&1
echo "screenshot: $out"
