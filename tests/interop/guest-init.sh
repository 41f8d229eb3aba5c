#!/bin/sh
# /init of the interop guest: loads rxe's modules, puts eth0 on the address
# and MTU the kernel command line gives (iv.addr=, iv.mtu=), creates rxe0 on
# it, waits for its IPv4 and IPv6 GIDs, starts the agent (iv.agent=PORT).
# Everything it has to say goes to the console on lines "interop-guest: ...".
PATH=/usr/sbin:/usr/bin
export PATH HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# Memory registration pins pages.
ulimit -l unlimited

say() { echo "interop-guest: $*"; }
# arg NAME: the value of NAME=VALUE on the kernel command line.
arg() {
	for w in $(cat /proc/cmdline); do
		case $w in "$1"=*) echo "${w#*=}"; return;; esac
	done
}
fatal() {
	say "failed: $*"
	# The host sees qemu exit and stops waiting.
	poweroff -f
}
addr=$(arg iv.addr)
mtu=$(arg iv.mtu)
port=$(arg iv.agent)

while read -r ko; do
	insmod "$ko" || fatal "insmod $ko"
done </etc/modules.load

# No duplicate address detection: the link-local address (rxe's IPv6 GID)
# is usable as soon as the link is up, and nothing else is on the link.
echo 0 >/proc/sys/net/ipv6/conf/default/accept_dad
i=0
until [ -e /sys/class/net/eth0 ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && fatal "no eth0"
	sleep 0.1
done
echo 0 >/proc/sys/net/ipv6/conf/eth0/accept_dad
ip link set lo up
ip link set eth0 mtu "$mtu" || fatal "mtu $mtu"
ip addr add "$addr" dev eth0 || fatal "address $addr"
ip link set eth0 up
rdma link add rxe0 type rxe netdev eth0 || fatal "rdma link add"

# The port is ready when it is ACTIVE with both RoCEv2 GIDs in its table:
# ::ffff:IPv4 from the address, fe80:: from the link-local one.
v4=${addr%/*}
i=0
while :; do
	ibv_devinfo -d rxe0 -v >/tmp/devinfo 2>&1
	gid4=$(sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:$v4, RoCE v2\$/\1/p" /tmp/devinfo)
	gid6=$(sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*fe80:[0-9a-f:]*, RoCE v2$/\1/p' /tmp/devinfo)
	grep -q 'state:.*PORT_ACTIVE' /tmp/devinfo && [ -n "$gid4" ] &&
		[ -n "$gid6" ] && break
	i=$((i + 1))
	[ $i -gt 150 ] && { cat /tmp/devinfo; fatal "rxe0 not ready"; }
	sleep 0.2
done

# One agent per connection; `-ll` keeps listening after each.
setsid nc -ll -p "$port" -e /usr/sbin/agent </dev/null >/dev/null 2>&1 &
hex=$(printf ':%04X ' "$port")
i=0
until grep -q "$hex[0-9A-F:]* 0A" /proc/net/tcp /proc/net/tcp6; do
	i=$((i + 1))
	[ $i -gt 100 ] && fatal "agent does not listen"
	sleep 0.1
done
say "ready gid4=$gid4 gid6=$gid6 mtu=$(sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' /tmp/devinfo) uptime=$(cut -d' ' -f1 /proc/uptime)"

# init must not exit.
while :; do
	sleep 3600
done
