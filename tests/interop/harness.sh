# Sourced by the interop scripts (rxe.sh, rxe_cm.sh) after
# ../integration/lib.sh and their own `need`, with IV_NAME set (their
# logs go to tests/interop/$IV_NAME-run): skips (77) where this machine
# cannot, makes or reuses the guest, boots it on a tap in a namespace of
# the script's own with a capture of UDP 4791 running on the tap, and
# leaves:
#   NS TAP HOST_IP GUEST_IP HOST_LL GUEST_LL  the link and its addresses
#   ggid4 ggid6, hgid4 hgid6  rxe0's and emu0's RoCEv2 GIDs (IPv4, IPv6)
#   gx SECONDS SCRIPT         runs SCRIPT in the guest
#   EMU_NS                    the prefix that runs emuverbs on the tap
#   cap dump_pid out console  the capture, tcpdump, the logs' directory
#   servers                   pids cleanup kills (the script's servers)
# On its own exit the cleanup (trap EXIT) ends qemu, tcpdump and the
# servers and deletes the namespace.
need bash timeout flock ip tcpdump tshark ss /usr/bin/python3
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: a tap in a network namespace needs root"
	exit 77
fi
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "SKIP: qemu-system-x86_64 is not installed"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: no /dev/net/tun for a tap"; exit 77; }
here=$top_srcdir/tests/interop
started=$(date +%s)
now() { date +%s.%N; }

# The guest is kept between runs; CI may share one cache among its builds.
cache=${INTEROP_CACHE:-$top_builddir/tests/interop/cache}
# One interop script at a time (make check -j runs rxe.sh and rxe_cm.sh
# together): they share the cache mkguest may be rebuilding, and two
# guests without KVM on a small machine miss each other's timeouts. The
# lock goes when the script exits.
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
sh "$here/mkguest.sh" "$cache" >"$WORK/mkguest.log" 2>&1
rc=$?
cat "$WORK/mkguest.log"
if [ $rc -eq 77 ]; then
	echo "SKIP: $(tail -1 "$WORK/mkguest.log" | sed 's/^mkguest: //')"
	exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: making the guest"; exit 1; }

# Names carry our pid: a developer's rxe-peer (netns rxenet) or another
# copy of this test never meets ours. The addresses exist in there only.
NS="ivrxe$$"
TAP="ivtap$$"
HOST_IP=10.91.0.1
GUEST_IP=10.91.0.2
# Fixed MACs make fixed link-local addresses (the IPv6 GIDs), by EUI-64.
HOST_MAC=52:54:00:91:00:01
HOST_LL=fe80::5054:ff:fe91:1
GUEST_MAC=52:54:00:91:00:02
GUEST_LL=fe80::5054:ff:fe91:2
AGENT=7070
# rxe's active MTU is the largest IB MTU that fits the netdev with the
# RoCEv2 headers: 4200 gives 4096 (1500 would give 1024).
MTU=4200
out=$top_builddir/tests/interop/$IV_NAME-run
rm -rf "$out"
mkdir -p "$out"
qemu_pid=""
dump_pid=""
servers=""

cleanup() {
	for p in $servers $dump_pid; do
		kill "$p" 2>/dev/null
	done
	# Only our qemu: its pid, checked against the name we gave it.
	if [ -n "$qemu_pid" ] &&
		tr '\0' ' ' <"/proc/$qemu_pid/cmdline" 2>/dev/null |
		grep -q "qemu-system-x86_64 -name interop-$$ "; then
		kill "$qemu_pid"
		i=0
		while [ -d "/proc/$qemu_pid" ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		[ -d "/proc/$qemu_pid" ] && kill -9 "$qemu_pid"
	fi
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if ! { ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip -n "$NS" tuntap add dev "$TAP" mode tap; }; then
	echo "SKIP: cannot create a network namespace with a tap here"
	exit 77
fi
# No duplicate address detection, so the tap's fe80:: address (emuverbs'
# IPv6 GID) can be bound at once.
ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$TAP.accept_dad=0"
ip -n "$NS" link set "$TAP" address "$HOST_MAC" mtu "$MTU"
ip -n "$NS" addr add "$HOST_IP/24" dev "$TAP"
ip -n "$NS" link set "$TAP" up

# The capture runs from before the guest exists to after the last cell.
cap="$WORK/$IV_NAME.pcap"
ip netns exec "$NS" tcpdump -i "$TAP" -nn -U -s 0 -w "$cap" udp port 4791 \
	>"$WORK/tcpdump.log" 2>&1 &
dump_pid=$!
i=0
until grep -q 'listening on' "$WORK/tcpdump.log"; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! [ -d "/proc/$dump_pid" ]; then
		bad "tcpdump captures the tap" "$WORK/tcpdump.log"
		finish
		exit 1
	fi
	sleep 0.1
done

console="$WORK/console.log"
: >"$console"
ip netns exec "$NS" qemu-system-x86_64 -name "interop-$$" \
	-machine pc -accel tcg,thread=multi -cpu max -smp 2 -m 512 \
	-nodefaults -no-user-config -display none -no-reboot \
	-kernel "$cache/vmlinuz" -initrd "$cache/initramfs.gz" \
	-append "console=ttyS0 quiet panic=-1 iv.addr=$GUEST_IP/24 iv.mtu=$MTU iv.agent=$AGENT" \
	-netdev "tap,id=net0,ifname=$TAP,script=no,downscript=no" \
	-device "virtio-net-pci,netdev=net0,mac=$GUEST_MAC" \
	-serial "file:$console" </dev/null >"$WORK/qemu.log" 2>&1 &
qemu_pid=$!
t0=$(date +%s)
while ! grep -q '^interop-guest: ready' "$console"; do
	if grep -q '^interop-guest: failed' "$console" ||
		! [ -d "/proc/$qemu_pid" ] || [ $(($(date +%s) - t0)) -gt 180 ]; then
		cp "$console" "$WORK/qemu.log" "$out/"
		bad "the guest boots" "$console"
		finish
		exit 1
	fi
	sleep 0.5
done
ready=$(grep '^interop-guest: ready' "$console")
echo "guest ready after $(($(date +%s) - t0)) s: ${ready#interop-guest: ready }"
field() { echo "$ready" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
ggid4=$(field gid4)
ggid6=$(field gid6)
if [ "$(field mtu)" = 4096 ]; then
	ok "rxe0 is active with MTU 4096, GIDs ::ffff:$GUEST_IP [$ggid4] and fe80:: [$ggid6]"
else
	bad "rxe0 has MTU 4096 ($ready)"
fi

# gx SECONDS SCRIPT: runs SCRIPT in the guest through its agent; prints
# the output and returns the script's status (255: no answer in time).
gx() {
	printf '%s\n@@end\n' "$2" |
		timeout "$1" ip netns exec "$NS" bash -c \
		'exec 3<>"/dev/tcp/$0/$1" && cat >&3 && cat <&3' \
		"$GUEST_IP" "$AGENT" >"$WORK/gx.out" 2>&1
	_st=$(sed -n 's/.*@@status \([0-9]*\)$/\1/p' "$WORK/gx.out" | tail -1)
	sed -e '/^@@status [0-9]*$/d' -e 's/@@status [0-9]*$//' "$WORK/gx.out"
	[ -n "$_st" ] || return 255
	return "$_st"
}

conf="$WORK/emu.conf"
printf '[device emu0]\n[port emu0 1]\nnetdev = %s\n' "$TAP" >"$conf"
EMU_NS="ip netns exec $NS env EMUVERBS_CONFIG=$conf"
$EMU_NS "$EMU" devices >"$WORK/devices" 2>&1
cat "$WORK/devices"
# gid_of REGEX: the index of the RoCEv2 GID matching REGEX in emu0's table.
gid_of() {
	sed -n "s/^ *GID\[ *\([0-9]*\)\] $1 *RoCEv2 .*/\1/p" "$WORK/devices" |
		head -1
}
hgid4=$(gid_of "::ffff:$HOST_IP")
hgid6=$(gid_of 'fe80:[0-9a-f:]*')
if [ -n "$hgid4" ] && [ -n "$hgid6" ] && grep -q 'MTU 4096' "$WORK/devices"; then
	ok "emu0 on $TAP: MTU 4096, GIDs ::ffff:$HOST_IP [$hgid4] and fe80:: [$hgid6]"
else
	bad "emu0 on $TAP has MTU 4096 and both RoCEv2 GIDs" "$WORK/devices"
fi

