#!/usr/bin/env bash
# Set up a fresh machine for the playground: system packages (when run as root), a virtual
# environment with the project and its test tools, and the database.
#   ./setup.sh            everything
#   SKIP_APT=1 ./setup.sh  skip the system packages
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES="redis-server postgresql chromium chromium-driver gettext fonts-wqy-microhei"
if [ -z "${SKIP_APT:-}" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  missing=""
  for p in $APT_PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends $missing >/dev/null
  fi
fi

# Node for the browser scripts' lint and unit tests (make jslint jstest), when none is installed.
if [ -z "${SKIP_APT:-}" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null \
  && ! command -v npm >/dev/null; then
  echo "setup: installing nodejs npm"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends nodejs npm >/dev/null
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -e '.[test]'
# The translations' .mo files are build output (msgfmt, from Debian's gettext).
if [ -f manage.py ] && command -v msgfmt >/dev/null; then
  .venv/bin/python manage.py compilemessages --ignore=.venv --ignore=node_modules >/dev/null
elif [ -f manage.py ]; then
  echo "setup: msgfmt is missing (apt-get install gettext): the pages stay in English" >&2
fi
# ESLint and Prettier, as package-lock.json pins them (node_modules/).
if command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
else
  echo "setup: npm is missing (apt-get install nodejs npm): make jslint jstest cannot run" >&2
fi
if [ -f manage.py ]; then
  .venv/bin/python manage.py migrate --noinput >/dev/null
fi
echo "setup: done (.venv ready)"
