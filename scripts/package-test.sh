#!/usr/bin/env bash
# Builds the Debian package from ./build, installs it with apt, and checks the
# installed programs: the CLI's version, a filter on a bundled sample, and the
# GUI staying up offscreen for a few seconds. Removes the package afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d build ] || bash scripts/build.sh
(cd build && cpack -G DEB >/dev/null)
deb=$(ls -t build/filterstudio_*.deb | head -n 1)
echo "package: $deb"
dpkg-deb --field "$deb" Depends
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "./$deb" >/dev/null
trap 'DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y -qq filterstudio >/dev/null' EXIT

/usr/bin/filterstudio-cli --version
out=$(mktemp -d)
/usr/bin/filterstudio-cli apply -i /usr/share/filterstudio/samples/fruits.jpg -o "$out/fruits-sobel.png" -k sobel-mag
test -s "$out/fruits-sobel.png"
/usr/bin/filterstudio --version
# The GUI must still be running when timeout stops it (exit 124); anything else is a crash or an early exit.
set +e
QT_QPA_PLATFORM=offscreen timeout 5 /usr/bin/filterstudio /usr/share/filterstudio/samples/fruits.jpg
status=$?
set -e
if [ "$status" -ne 124 ]; then
  echo "package: the installed GUI exited with status $status within 5 s" >&2
  exit 1
fi
test -f /usr/share/applications/filterstudio.desktop
test -f /usr/share/icons/hicolor/scalable/apps/filterstudio.svg
echo "package: installed and ran OK"
