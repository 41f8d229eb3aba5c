#!/bin/sh
# After `make install` into a private prefix: `emuverbs run` finds the
# installed libraries (never the system's), and programs built with
# `pkg-config emuverbs` and `pkg-config emuverbs-rdmacm` compile against
# our headers and run against our libibverbs and librdmacm.
. "$(dirname "$0")/lib.sh"
need ibv_devices pkg-config make cc

src="$WORK/src"
inst="$WORK/inst"
mkdir -p "$src"
# A copy of the sources only: the tree under test may be configured in place.
(cd "$top_srcdir" && tar cf - --exclude='*.o' --exclude='*.lo' \
	--exclude='.libs' --exclude='.deps' --exclude='*.la' \
	--exclude='config.status' --exclude='config.log' --exclude=Makefile \
	--exclude='*.log' --exclude='*.trs' --exclude=libtool \
	--exclude=.git --anchored --exclude=./emuverbs \
	--exclude=./emuverbs.pc .) |
	(cd "$src" && tar xf -)
if (cd "$src" && ./configure --prefix="$inst" >"$WORK/configure.log" 2>&1 &&
	make -j"$(nproc)" >"$WORK/make.log" 2>&1 &&
	make install >"$WORK/install.log" 2>&1); then
	ok "configure, make, make install into a private prefix"
else
	bad "make install" "$WORK/make.log"
	tail -20 "$WORK/install.log"
	finish
	exit 1
fi

[ -f "$inst/lib/emuverbs/libibverbs.so.1" ] && ok "library in \$libdir/emuverbs" ||
	bad "library in \$libdir/emuverbs"
[ -f "$inst/lib/emuverbs/librdmacm.so.1" ] && ok "librdmacm in \$libdir/emuverbs" ||
	bad "librdmacm in \$libdir/emuverbs"
[ ! -e "$inst/lib/libibverbs.so.1" ] && [ ! -e "$inst/lib/librdmacm.so.1" ] &&
	ok "nothing over the system's library path" ||
	bad "nothing over the system's library path"
for h in rdma/rdma_cma.h rdma/rdma_verbs.h rdma/rsocket.h \
	infiniband/sa.h infiniband/ib.h; do
	[ -f "$inst/include/emuverbs/$h" ] && ok "header \$includedir/emuverbs/$h" ||
		bad "header \$includedir/emuverbs/$h"
done
[ ! -e "$inst/include/rdma" ] && [ ! -e "$inst/include/infiniband" ] &&
	ok "no header over the system's include path" ||
	bad "no header over the system's include path"

"$inst/bin/emuverbs" run ibv_devices >"$WORK/out" 2>&1
expect "installed emuverbs run ibv_devices" "$WORK/out" 'emu0'
"$inst/bin/emuverbs" devices >"$WORK/out" 2>&1
expect "installed emuverbs devices" "$WORK/out" 'port 1: active'

cat >"$WORK/speed.c" <<'C'
#include <stdio.h>
#include <infiniband/verbs.h>
int main(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *c = l && l[0] ? ibv_open_device(l[0]) : NULL;
	uint64_t s = 0;

	if (!c || ibv_query_port_speed(c, 1, &s))
		return 1;
	printf("port_speed %llu\n", (unsigned long long)s);
	return ibv_close_device(c);
}
C
PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs emuverbs \
	>"$WORK/pc" 2>&1
# shellcheck disable=SC2046
if cc -o "$WORK/speed" "$WORK/speed.c" $(cat "$WORK/pc") >"$WORK/cc" 2>&1; then
	ok "a program builds with pkg-config emuverbs"
	"$WORK/speed" >"$WORK/out" 2>&1
	expect "it links to our library and queries the port speed" \
		"$WORK/out" '^port_speed 1000$'
else
	bad "a program builds with pkg-config emuverbs" "$WORK/cc"
fi

# A program of rdma_cm's API, built with pkg-config emuverbs-rdmacm: our
# headers (RDMA_CM_EVENT_USER is rdma-core 65's, Debian's lacks it), our
# librdmacm at run time (an event channel, and emu0 in rdma_get_devices).
if command -v rping >/dev/null 2>&1; then
	# A client to a port nobody listens on: rejected at once.
	LD_DEBUG=libs timeout 20 "$inst/bin/emuverbs" run rping -c -C 1 \
		-a 127.0.0.1 -p 9 >"$WORK/ld" 2>&1
	expect "installed emuverbs run rping loads the installed librdmacm" \
		"$WORK/ld" \
		"calling init: $inst/lib/emuverbs/librdmacm\\.so\\.1\$"
fi
cat >"$WORK/cm.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
int main(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ibv_context **devs;
	int n = 0;

	printf("channel %s errno %d\n", ch ? "created" : "refused", errno);
	devs = rdma_get_devices(&n);
	printf("devices %d %s\n", n,
	       devs && n ? ibv_get_device_name(devs[0]->device) : "-");
	printf("event %d %s\n", RDMA_CM_EVENT_USER,
	       rdma_event_str(RDMA_CM_EVENT_ESTABLISHED));
	rdma_free_devices(devs);
	if (ch)
		rdma_destroy_event_channel(ch);
	return ch == NULL;
}
C
PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs \
	emuverbs-rdmacm >"$WORK/pc" 2>&1
# shellcheck disable=SC2046
if cc -o "$WORK/cm" "$WORK/cm.c" $(cat "$WORK/pc") >"$WORK/cc" 2>&1; then
	ok "a program builds with pkg-config emuverbs-rdmacm"
	"$WORK/cm" >"$WORK/out" 2>&1
	expect "it runs against our librdmacm: an event channel" "$WORK/out" \
		'^channel created'
	expect "and emu0 from rdma_get_devices" "$WORK/out" '^devices 1 emu0$'
	expect "with our header's rdma-core 65 events" "$WORK/out" \
		'^event 18 RDMA_CM_EVENT_ESTABLISHED$'
	readelf -d "$WORK/cm" >"$WORK/dyn" 2>&1
	expect "it needs librdmacm.so.1" "$WORK/dyn" \
		'NEEDED.*\[librdmacm\.so\.1\]'
else
	bad "a program builds with pkg-config emuverbs-rdmacm" "$WORK/cc"
fi
finish
