#!/bin/sh
# Debian's unmodified ibv_devices and ibv_devinfo, run through `emuverbs
# run`, see the emulated device, its port, speed, width and GID table.
. "$(dirname "$0")/lib.sh"
need ibv_devices ibv_devinfo

out="$WORK/out"
err="$WORK/err"

"$EMU" run ibv_devices >"$out" 2>"$err"
expect "ibv_devices lists emu0" "$out" '^[[:space:]]+emu0[[:space:]]+02656d757f'

"$EMU" run ibv_devinfo -v >"$out" 2>"$err" || bad "ibv_devinfo exit status" "$err"
expect "devinfo: hca_id" "$out" 'hca_id:[[:space:]]+emu0'
expect "devinfo: transport" "$out" 'transport:[[:space:]]+InfiniBand \(0\)'
expect "devinfo: port active" "$out" 'state:[[:space:]]+PORT_ACTIVE \(4\)'
expect "devinfo: link layer" "$out" 'link_layer:[[:space:]]+Ethernet'
expect "devinfo: width" "$out" 'active_width:[[:space:]]+4X \(2\)'
expect "devinfo: speed" "$out" 'active_speed:[[:space:]]+25.0 Gbps \(32\)'
expect "devinfo: mtu" "$out" 'active_mtu:[[:space:]]+4096 \(5\)'
expect "devinfo: phys state" "$out" 'phys_state:[[:space:]]+LINK_UP \(5\)'
expect "devinfo: GID 0 is RoCEv2 v4-mapped loopback" "$out" \
	'GID\[ *0\]:[[:space:]]+::ffff:127\.[0-9.]+, RoCE v2'
expect "devinfo: GID 1 is RoCEv1" "$out" \
	'GID\[ *1\]:[[:space:]]+0000:0000:0000:0000:0000:ffff:7f[0-9a-f:]+, RoCE v1'
expect "devinfo: max_qp" "$out" 'max_qp:[[:space:]]+[1-9]'
reject "devinfo: nothing on stderr" "$err" '.'

# A configured device: two ports, other speeds and widths, static GIDs.
cat >"$WORK/two.conf" <<CONF
[device emuA]
max_qp = 64
[port emuA 1]
speed = HDR
width = 2x
mtu = 1024
[port emuA 2]
speed = SDR
width = 1x
link_layer = ethernet
gid = 4 fe80::1234 roce_v2
[device emuB]
CONF
EMUVERBS_CONFIG="$WORK/two.conf" "$EMU" run ibv_devinfo -v >"$out" 2>"$err" ||
	bad "devinfo with a config: exit status" "$err"
expect "config: both devices" "$out" 'hca_id:[[:space:]]+emuB'
expect "config: two ports" "$out" 'phys_port_cnt:[[:space:]]+2'
expect "config: max_qp" "$out" 'max_qp:[[:space:]]+64$'
expect "config: HDR 2x" "$out" 'active_width:[[:space:]]+2X \(16\)'
expect "config: HDR speed" "$out" 'active_speed:[[:space:]]+50.0 Gbps \(64\)'
expect "config: SDR speed" "$out" 'active_speed:[[:space:]]+2.5 Gbps \(1\)'
expect "config: MTU 1024" "$out" 'active_mtu:[[:space:]]+1024 \(3\)'
expect "config: static GID" "$out" 'GID\[ *4\]:[[:space:]]+fe80::1234, RoCE v2'

# A bad config: one line naming file:line and key; the device is not made.
cat >"$WORK/bad.conf" <<CONF
[device emuC]

[port emuC 1]
mtu = 5000
CONF
EMUVERBS_CONFIG="$WORK/bad.conf" "$EMU" run ibv_devinfo >"$out" 2>"$err"
expect "bad config: file:line: key" "$err" "bad.conf:4: mtu: "
if [ "$(grep -c . "$err")" -eq 1 ] || grep -q "No IB devices found" "$err"; then
	ok "bad config: reported once"
else
	bad "bad config: reported once" "$err"
fi
reject "bad config: device not created" "$out" 'hca_id:[[:space:]]+emuC'

# The emuverbs command's own listing uses ibv_query_port_speed.
"$EMU" devices >"$out" 2>"$err" || bad "emuverbs devices exit status" "$err"
expect "emuverbs devices: port speed" "$out" \
	'4x EDR, 100.0 Gb/s \(port_speed 1000 x 100 Mb/s\)'
expect "emuverbs devices: GID table" "$out" 'GID\[ 0\] ::ffff:127'

# Environment overrides.
EMUVERBS_SPEED=NDR EMUVERBS_WIDTH=2x "$EMU" devices >"$out" 2>"$err"
expect "env override: 2x NDR" "$out" '2x NDR, 200.0 Gb/s \(port_speed 2000'

finish
