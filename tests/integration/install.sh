#!/bin/sh
# After `make install` into a private prefix: `emuverbs run` finds the
# installed library (never the system's), and a program built with
# `pkg-config emuverbs` compiles against our header and runs.
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
[ ! -e "$inst/lib/libibverbs.so.1" ] && ok "nothing over the system's library path" ||
	bad "nothing over the system's library path"

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
finish
