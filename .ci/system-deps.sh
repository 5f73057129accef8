#!/usr/bin/env bash
# System packages the test suite uses, installed when missing and when we can (root + apt):
#   bubblewrap  the bot sandbox's namespaces (network, pid, mount); unshare+setpriv is the fallback
#   chromium    headless rendering test of the published leaderboard page
#   postgresql  the competition server's PostgreSQL test (it starts its own server)
# Best effort: without them the sandbox falls back (with a warning) and the browser test skips.
set -u
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 \
    || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing system packages: ${need[*]} ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${need[@]}" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "${need[@]}" >/dev/null 2>&1; } \
        || echo "warning: could not install ${need[*]}; the tests that need them will say so"
else
    echo "note: ${need[*]} missing and cannot be installed here (needs root and apt)"
fi
exit 0
