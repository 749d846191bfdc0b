#!/usr/bin/env bash
# The Debian packages on a fresh root: CPack builds ava and ava-desktop from
# this build tree, apt installs them into an overlay of / in a mount
# namespace of their own (the real root is never written), the installed ava
# runs (--version, doctor, service install's refusal without systemd, the
# backend serving the packaged web UI), and apt purge leaves nothing behind.
#   deb_install.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null; then
  echo "skipped: needs root and unshare for a private overlay root"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1) || fail "cpack: $(tail -20 "$work/cpack.log")"
ls "$work"/pkg/ava_*.deb "$work"/pkg/ava-desktop_*.deb > /dev/null || fail "no packages: $(ls "$work/pkg")"
grep -q "Depends: ava (= " <<< "$(dpkg-deb -I "$work"/pkg/ava-desktop_*.deb)" || fail "ava-desktop does not depend on ava"

cat > "$work/inside.sh" <<'INSIDE'
#!/usr/bin/env bash
# Runs in the chroot.
set -euo pipefail
fail() { echo "FAIL (inside): $*"; exit 1; }
export AVA_HOME=/tmp/ava-home AVA_LOCAL_PROBE=0 HOME=/tmp/user
unset XDG_RUNTIME_DIR DBUS_SESSION_BUS_ADDRESS ANTHROPIC_API_KEY OPENAI_API_KEY AVA_PROVIDER
mkdir -p "$HOME"
apt-get install -y -qq --no-install-recommends /tmp/debs/ava_*.deb /tmp/debs/ava-desktop_*.deb \
  > /tmp/apt-install.log 2>&1 || fail "apt install: $(tail -20 /tmp/apt-install.log)"
[ "$(command -v ava)" = /usr/bin/ava ] || fail "ava is not /usr/bin/ava"
[ "$(ava --version)" = "ava 0.1.0" ] || fail "version: $(ava --version)"
[ -x /usr/bin/ava-desktop ] || fail "no ava-desktop"
[ -f /usr/share/applications/dev.ava.Ava.desktop ] || fail "no .desktop file"
[ -f /usr/share/man/man1/ava.1 ] || fail "no man page"
[ -f /usr/share/bash-completion/completions/ava ] || fail "no completion"
systemd-analyze verify /usr/lib/systemd/user/ava-backend.service > /tmp/verify.log 2>&1 ||
  fail "packaged unit: $(cat /tmp/verify.log)"

set +e
ava doctor --no-mcp > /tmp/doctor.out 2>&1; code=$?
set -e
[ "$code" = 1 ] || fail "doctor exit $code: $(cat /tmp/doctor.out)"
grep -q "^FAIL  provider  no provider is configured" /tmp/doctor.out || fail "doctor: $(cat /tmp/doctor.out)"
grep -q "ava-backend is missing" /tmp/doctor.out && fail "doctor: the backend is missing"

set +e
ava service install > /tmp/service.out 2>&1; code=$?
set -e
[ "$code" = 1 ] || fail "service install exit $code: $(cat /tmp/service.out)"
grep -q "systemd user services are not available here" /tmp/service.out ||
  fail "service install: $(cat /tmp/service.out)"

# The installed backend serves the packaged web UI from /usr/share/ava/web.
ava backend start > /tmp/backend.out 2>&1 || fail "backend start: $(cat /tmp/backend.out)"
login=$(ava backend open --no-open) || fail "backend open"
curl -sfL -c /tmp/jar -b /tmp/jar "$login" > /tmp/index.html || fail "GET $login"
grep -q "not built" /tmp/index.html && fail "the backend did not find the packaged web UI"
grep -qi "<script" /tmp/index.html || fail "index: $(head -c 300 /tmp/index.html)"
ava backend stop > /dev/null || fail "backend stop"

apt-get purge -y -qq ava ava-desktop > /tmp/apt-purge.log 2>&1 || fail "purge: $(tail /tmp/apt-purge.log)"
! dpkg -s ava > /dev/null 2>&1 || fail "ava is still installed"
echo "inside: ok"
INSIDE
chmod +x "$work/inside.sh"

# / as the lower layer of an overlay on a tmpfs: everything apt writes lands
# in the upper layer, which is looked at afterwards and then discarded.
unshare --mount --fork bash -s "$work" <<'OUTSIDE' || fail "the install test failed"
set -euo pipefail
work=$1
layers=$work/layers
mkdir -p "$layers"
mount -t tmpfs tmpfs "$layers"
mkdir -p "$layers"/{upper,work,root}
mount -t overlay overlay -o "lowerdir=/,upperdir=$layers/upper,workdir=$layers/work" "$layers/root"
root=$layers/root
for fs in proc sys dev; do mount --rbind "/$fs" "$root/$fs"; done
mount -t tmpfs tmpfs "$root/tmp"
mkdir -p "$root/tmp/debs"
cp "$work"/pkg/*.deb "$root/tmp/debs/"
cp "$work/inside.sh" "$root/tmp/inside.sh"
chroot "$root" /tmp/inside.sh
# Left behind: a new file outside the package manager's own state and logs
# (a system file that existed before, like a cache a trigger rebuilt, is not).
left=$(cd "$layers/upper" && find . -not -type d \
  -not -path './var/lib/dpkg/*' -not -path './var/lib/apt/*' -not -path './var/cache/*' \
  -not -path './var/log/*' -not -path './tmp/*' -not -path './run/*' -not -path './root/*' |
  while read -r f; do [ -e "/${f#./}" ] || echo "$f"; done | sort)
dirs=$(cd "$layers/upper" && find . -type d \( -name 'ava*' -o -name '*.ava*' \) -not -path './tmp/*' | sort)
if [ -n "$left$dirs" ]; then
  echo "FAIL: left behind after purge:"; echo "$left"; echo "$dirs"; exit 1
fi
OUTSIDE
echo "deb_install: ok"
