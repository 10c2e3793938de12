#!/bin/sh
# Installs the peer engines of `npm run bench:peers`: Lucene 8, Xapian and SQLite
# from Debian, MiniSearch, Orama and the chart renderer (vega-lite) from npm into
# bench/peers/node_modules. None of them is a dependency of the server.
set -eu
cd "$(dirname "$0")"

need_apt=""
ls /usr/share/java/lucene-core-8*.jar /usr/share/java/lucene-analyzers-common-8*.jar >/dev/null 2>&1 || need_apt=1
/usr/bin/python3 -c 'import xapian' 2>/dev/null || need_apt=1
command -v sqlite3 >/dev/null 2>&1 || need_apt=1
command -v java >/dev/null 2>&1 || need_apt=1
if [ -n "$need_apt" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update
  $SUDO apt-get install -y default-jdk-headless liblucene8-java xapian-tools python3-xapian sqlite3
else
  echo "Debian peers already installed (liblucene8-java, python3-xapian, sqlite3, java)"
fi

# Exact versions from package.json (lockfile kept beside it).
npm ci --no-audit --no-fund || { echo "npm ci failed (above); trying npm install" >&2; npm install --no-audit --no-fund; }
# Debian's liblucene8-java names its jars 8.7.0 whatever its version: the package says which Lucene it is.
echo "peers installed: $(java -version 2>&1 | head -1); Lucene $(dpkg-query -W -f='${Version}' liblucene8-java); Xapian $(/usr/bin/python3 -c 'import xapian; print(xapian.version_string())'); SQLite $(sqlite3 --version | cut -d' ' -f1)"
