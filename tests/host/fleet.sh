#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installing dropscope as a lab fleet does, checked end to end (KTAP):
#   - make install / uninstall into a DESTDIR, with PREFIX;
#   - make deb: both packages, lintian clean (scripts/deb);
#   - in a copy-on-write view of this machine's root (overlayfs in a mount
#     namespace of its own, so the machine itself is left as it was):
#     make dkms-install builds and installs the module for every kernel
#     with headers; make dkms-uninstall takes it away; then the packages
#     install with dpkg, and DKMS builds for each lab kernel as its
#     kernel-install hook does on an upgrade;
#   - each lab kernel boots with that view as its root: modprobe
#     dropscope loads the DKMS-built module, the packaged CLI counts drops
#     exactly (Udp NoPorts), and the packaged bash completion completes.
# Usage: tests/host/fleet.sh (as root; re-executes itself in a new mount
# namespace)
set -u
cd "$(dirname "$0")/../.." || exit 1

if [ -z "${FLEET_NS:-}" ]; then
	FLEET_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

n=0 nfail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
fail() { n=$((n + 1)) nfail=$((nfail + 1)); echo "not ok $n $1"; shift; printf '# %s\n' "$@"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected: $2" "got: $3"; fi; }

echo "KTAP version 1"
VERSION=$(sed -n 's/^#define DS_VERSION "\(.*\)"/\1/p' user/main.c)
mkdir -p build
W=$(mktemp -d "$PWD/build/fleet.XXXXXX")
cleanup() {
	umount -R "$W/root" 2>/dev/null
	umount "$W" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# --- make install / uninstall -------------------------------------------------
make --no-print-directory user >/dev/null || { fail "the CLI builds"; exit 1; }
KVER=$(scripts/kernels 6.12)
stage=$W/stage
files="usr/sbin/dropscope
usr/share/man/man8/dropscope.8
usr/share/man/man8/dropscope-capture.8
usr/share/man/man8/dropscope-export.8
usr/share/man/man8/dropscope-rule.8
usr/share/man/man8/dropscope-run.8
usr/share/man/man8/dropscope-sessions.8
usr/share/man/man8/dropscope-smc.8
usr/share/bash-completion/completions/dropscope
usr/share/doc/dropscope/examples/kselftest-net.rules
usr/share/doc/dropscope/examples/normal.rules
lib/modules/$KVER/updates/dropscope.ko"
# the module builds in a tree of its own: the lab suites, which may run
# beside this test, load theirs from build/kmod/RELEASE
if make --no-print-directory install DESTDIR="$stage" PREFIX=/usr KVER="$KVER" \
	KBUILD_OUT="${W#"$PWD"/}/kmod" > "$W/install.log" 2>&1; then
	got=$(cd "$stage" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
	check "make install DESTDIR PREFIX=/usr: the CLI, man pages, completion, example rules, module" \
		"$(echo "$files" | sort | tr '\n' ' ')" "$got"
else
	fail "make install DESTDIR PREFIX=/usr" "$(tail -5 "$W/install.log")"
fi
make --no-print-directory uninstall DESTDIR="$stage" PREFIX=/usr KVER="$KVER" > /dev/null 2>&1
check "make uninstall removes every file it installed" "" \
	"$(find "$stage" -type f | tr '\n' ' ')"
make --no-print-directory install-cli DESTDIR="$stage" > /dev/null 2>&1
check "the default PREFIX is /usr/local" "usr/local/sbin/dropscope" \
	"$(cd "$stage" && find . -name dropscope -type f -path '*sbin*' | sed 's|^\./||')"
rm -rf "$stage"

# --- make deb ------------------------------------------------------------------
if make --no-print-directory deb > "$W/deb.log" 2>&1; then
	ok "make deb: dropscope and dropscope-dkms, lintian clean"
else
	fail "make deb: dropscope and dropscope-dkms, lintian clean" "$(tail -15 "$W/deb.log")"
	exit 1
fi
DEBS="build/deb/dropscope_${VERSION}_amd64.deb build/deb/dropscope-dkms_${VERSION}_amd64.deb"
contents=$(dpkg -c "build/deb/dropscope-dkms_${VERSION}_amd64.deb")
check "dropscope-dkms holds the module's source and dkms.conf" "2" \
	"$(grep -c -E "usr/src/dropscope-$VERSION/(dkms.conf|kmod/probe.c)$" <<< "$contents")"

# --- the copy-on-write root -------------------------------------------------------
mount -t tmpfs fleet "$W" && mkdir -p "$W/upper" "$W/work" "$W/root" &&
	mount -t overlay overlay -o "lowerdir=/,upperdir=$W/upper,workdir=$W/work" "$W/root" &&
	mount -t proc proc "$W/root/proc" && mount --rbind /sys "$W/root/sys" &&
	mount --rbind /dev "$W/root/dev" && mount -t tmpfs tmp "$W/root/tmp" &&
	mount -t tmpfs run "$W/root/run" || { fail "an overlay of / to install into"; exit 1; }
R=$W/root
in_root() { chroot "$R" "$@"; }
# the installed kernels, with their headers: Debian unstable's, kept in a
# cache of the lab's, have no headers DKMS could build with here
kernels=$(scripts/kernels "6.1 6.12 rt")

# what the tree's make dkms-install does, on every kernel with headers
mkdir -p "$R/tmp/src"
cp -r Makefile dkms.conf include kmod user man "$R/tmp/src/"
rm -f "$R/tmp/src/kmod/"*.ko "$R/tmp/src/user/dropscope"
if in_root make -C /tmp/src --no-print-directory dkms-install > "$W/dkms.log" 2>&1; then
	ok "make dkms-install"
else
	fail "make dkms-install" "$(tail -15 "$W/dkms.log")"
fi
for k in $kernels; do
	check "make dkms-install: built and installed for $k" "installed" \
		"$(in_root dkms status -m dropscope -v "$VERSION" -k "$k" | sed -n 's/.*: \(installed\).*/\1/p')"
done
in_root make -C /tmp/src --no-print-directory dkms-uninstall > /dev/null 2>&1
check "make dkms-uninstall: no module left" "" \
	"$(for k in $kernels; do ls "$R/lib/modules/$k/updates/dkms/" 2>/dev/null; done; in_root dkms status -m dropscope)"

# the packages, as apt installs them; then DKMS for each lab kernel, as
# /etc/kernel/postinst.d/dkms runs when a kernel is installed
cp $DEBS "$R/tmp/"
if in_root sh -c "dpkg -i /tmp/dropscope-dkms_${VERSION}_amd64.deb /tmp/dropscope_${VERSION}_amd64.deb" > "$W/dpkg.log" 2>&1; then
	ok "dpkg -i dropscope-dkms dropscope"
else
	fail "dpkg -i dropscope-dkms dropscope" "$(tail -15 "$W/dpkg.log")"
fi
for k in $kernels; do
	in_root /etc/kernel/postinst.d/dkms "$k" >> "$W/dpkg.log" 2>&1
	check "DKMS at the install of kernel $k: the module is installed" "installed" \
		"$(in_root dkms status -m dropscope -v "$VERSION" -k "$k" | sed -n 's/.*: \(installed\).*/\1/p')"
done

# --- each lab kernel, booted with the packaged root ------------------------------
# the guests mount their own /proc, /sys, /dev, /tmp and /run there
for m in run tmp dev sys proc; do umount -R "$R/$m"; done
cat > "$W/guest.sh" <<'EOF'
#!/bin/bash
# in the guest: the packaged root at $1, chrooted, as a lab machine
R=$1
mount -t proc proc "$R/proc" && mount -t sysfs sys "$R/sys" &&
	mount --bind /dev "$R/dev" && mount -t tmpfs tmp "$R/tmp" && mount -t tmpfs run "$R/run" ||
	{ echo "mounts failed"; exit 1; }
mount -t tracefs tracefs "$R/sys/kernel/tracing" 2>/dev/null
# where this kernel drops a datagram to a closed port (tracefs tells)
SITE=$(tests/lab/dropsite udp 127.0.0.1 7) || { echo "no UDP site found"; exit 1; }
export SITE
chroot "$R" /bin/bash -s <<'IN'
set -u
echo "modprobe: $(modprobe dropscope 2>&1 && echo loaded)"
echo "path: $(modinfo -n dropscope)"
echo "which: $(command -v dropscope)"
udp0=$(awk '/^Udp:/ {getline; print $3}' /proc/net/snmp)
dropscope start drops
python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(250):
    s.sendto(b"x", ("127.0.0.1", 7))
'
dropscope stop
udp1=$(awk '/^Udp:/ {getline; print $3}' /proc/net/snmp)
echo "noports: $((udp1 - udp0))"
echo "counted: $(dropscope -j show sites | python3 -c 'import json,sys; print(sum(s["count"] for s in json.load(sys.stdin) if s["reason"]=="NO_SOCKET" and s["symbol"].startswith(sys.argv[1] + "+")))' "$SITE")"
source /usr/share/bash-completion/completions/dropscope
COMP_WORDS=(dropscope rule mask reason NO_SOC); COMP_CWORD=4
_dropscope 2>/dev/null
echo "completion: ${COMPREPLY[*]}"
dropscope rule load /usr/share/doc/dropscope/examples/normal.rules
echo "example rules: $(dropscope -j show rules | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
modprobe -r dropscope && echo "removed: yes"
IN
EOF
chmod +x "$W/guest.sh"
for series in 6.1 6.12 rt; do
	k=$(scripts/kernels "$series")
	scripts/lab -k "$series" -c 2 -t 600 -- "$W/guest.sh" "$R" > "$W/g.out" 2> "$W/g.err"
	field() { sed -n "s/^$1: //p" "$W/g.out"; }
	got="$(field modprobe) $(field path | sed 's/\.ko\..*$/.ko/')"
	if [ "$got" = "loaded /lib/modules/$k/updates/dkms/dropscope.ko" ]; then
		ok "$series: modprobe dropscope loads the DKMS module"
	else
		fail "$series: modprobe dropscope loads the DKMS module" "got: $got" \
			"$(tail -5 "$W/g.out")" "$(tail -5 "$W/g.err")"
	fi
	check "$series: the packaged CLI counts 250 drops, as Udp NoPorts" "250 250 /usr/sbin/dropscope" \
		"$(field noports) $(field counted) $(field which)"
	check "$series: the packaged bash completion completes a reason" "NO_SOCKET" "$(field completion)"
	check "$series: the packaged example rules load, each uncommented line a rule" \
		"$(grep -cE '^(optional )?rule' examples/normal.rules)" "$(field "example rules")"
	check "$series: modprobe -r dropscope" "yes" "$(field removed)"
done

echo "1..$n"
echo "# $((n - nfail)) passed, $nfail failed"
[ "$nfail" -eq 0 ]
