#!/bin/sh
# Makes the interop guest in a cache directory and keeps it there: Debian's
# own kernel (fetched with apt-get download, unpacked by dpkg-deb, never
# installed) and an initramfs of busybox, the host's rdma-core userspace,
# the modules rdma_rxe needs and the command agent.
#
# usage: mkguest.sh CACHE    (prints what it does; the results are
#   CACHE/vmlinuz and CACHE/initramfs.gz). Exit 0 when both are there,
#   77 with a reason when this machine cannot make them, 1 on error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?usage: mkguest.sh CACHE}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
say() { echo "mkguest: $*"; }
cannot() { echo "mkguest: $*" >&2; exit 77; }

# Two test runs sharing a cache (INTEROP_CACHE) must not build it at once.
exec 9>"$cache/lock"
flock 9

# What the guest runs: the modules rxe needs, and the programs. virtio_pci
# and virtio_net give the guest its NIC. crc32_generic is named because no
# module depends on it: rdma_rxe asks the crypto API for a "crc32" shash
# (its ICRC) when a device is created, and the kernel finds the provider
# of that name only through module aliases and a modprobe helper, which
# this guest does not have; without it `rdma link add` fails. rdma_ucm is
# /dev/infiniband/rdma_cm, librdmacm's way to the kernel's RDMA CM (it
# brings rdma_cm and ib_cm, the IBTA CM on QP1, with it).
MODULES="virtio_pci virtio_net crc32_generic ib_uverbs rdma_rxe rdma_ucm"
PROGRAMS="/usr/bin/rdma /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong \
/usr/bin/ibv_uc_pingpong /usr/bin/ibv_ud_pingpong /usr/bin/ibv_srq_pingpong \
/usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy /usr/bin/rdma_server \
/usr/bin/rdma_client"
for p in /bin/busybox $PROGRAMS /etc/libibverbs.d/rxe.driver; do
	[ -e "$p" ] || cannot "$p is missing (busybox-static, iproute2, ibverbs-utils, ibverbs-providers, rdmacm-utils)"
done
# The guest has no libraries but those put_elf copies below: busybox must
# be the static one.
if ldd /bin/busybox >/dev/null 2>&1; then
	cannot "/bin/busybox is not static (install busybox-static)"
fi

# The kernel linux-image-amd64 points at today. A fresh machine may have no
# package lists yet; a machine without apt access still has its cache.
kver_of_apt() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -1
}
kver=$(kver_of_apt)
if [ -z "$kver" ]; then
	say "no package lists: apt-get update"
	apt-get update -q >"$cache/apt-update.log" 2>&1 || true
	kver=$(kver_of_apt)
fi
if [ -z "$kver" ] && [ -f "$cache/kernel/kver" ]; then
	kver=$(cat "$cache/kernel/kver")
	say "apt names no kernel; using the cached $kver"
fi
[ -n "$kver" ] || cannot "apt knows no linux-image-amd64 to download"

# The kernel tree keeps vmlinuz and the modules above in load order; the
# .deb stays in the cache so a change of MODULES needs no download.
kdir="$cache/kernel"
if [ "$(cat "$kdir/kver" 2>/dev/null)" != "$kver" ] ||
	[ "$(cat "$kdir/modules.want" 2>/dev/null)" != "$MODULES" ]; then
	deb=$(ls "$cache"/linux-image-"$kver"_*_amd64.deb 2>/dev/null | tail -1)
	if [ -z "$deb" ]; then
		rm -f "$cache"/linux-image-*.deb
		say "downloading linux-image-$kver"
		get() { (cd "$cache" && apt-get download -q "linux-image-$kver") \
			>"$cache/apt-download.log" 2>&1; }
		get || { apt-get update -q >"$cache/apt-update.log" 2>&1; get; } ||
			{ sed 's/^/    /' "$cache/apt-download.log" | tail -3 >&2;
			  cannot "cannot download linux-image-$kver"; }
		deb=$(ls "$cache"/linux-image-"$kver"_*_amd64.deb | tail -1)
	fi
	say "unpacking $(basename "$deb")"
	tree="$cache/unpack.$$"
	rm -rf "$tree" "$kdir.new"
	trap 'rm -rf "$tree" "$kdir.new"' EXIT
	dpkg-deb -x "$deb" "$tree"
	# The package has no modules.dep (its postinst makes one); make it.
	depmod -b "$tree" "$kver"
	mkdir -p "$kdir.new/modules"
	cp "$tree/boot/vmlinuz-$kver" "$kdir.new/vmlinuz"
	for m in $MODULES; do
		modprobe -d "$tree" -S "$kver" --show-depends "$m" |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r ko; do
		cp "$ko" "$kdir.new/modules/"
		basename "$ko" >>"$kdir.new/modules.order"
	done
	grep -qx rdma_rxe.ko "$kdir.new/modules.order" ||
		{ echo "mkguest: rdma_rxe is not in $kver" >&2; exit 1; }
	echo "$MODULES" >"$kdir.new/modules.want"
	echo "$kver" >"$kdir.new/kver"
	rm -rf "$tree" "$kdir"
	mv "$kdir.new" "$kdir"
	trap - EXIT
fi
ln -sf kernel/vmlinuz "$cache/vmlinuz"

# The initramfs is rebuilt when anything that goes into it changed: this
# script, the guest's files, the kernel, or the host packages copied in.
stamp=$( {
	cat "$0" "$here/guest-init.sh" "$here/guest-agent.sh"
	echo "$kver"
	dpkg-query -W busybox-static libc6 libibverbs1 ibverbs-providers \
		ibverbs-utils iproute2 librdmacm1 rdmacm-utils 2>/dev/null
} | sha256sum | cut -d' ' -f1)
if [ -f "$cache/initramfs.gz" ] &&
	[ "$(cat "$cache/initramfs.stamp" 2>/dev/null)" = "$stamp" ]; then
	say "cached guest: kernel $kver, $cache/initramfs.gz"
	exit 0
fi

say "building the initramfs"
root="$cache/root.$$"
rm -rf "$root"
trap 'rm -rf "$root" "$cache/initramfs.gz.new"' EXIT
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib64" \
	"$root/usr/lib/x86_64-linux-gnu" "$root/etc" "$root/proc" \
	"$root/sys" "$root/dev" "$root/tmp" "$root/run" "$root/root"
# The host's merged /usr, so the paths ldd prints are the guest's paths.
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$root/$d"
done

# put FILE: FILE at the same path in the guest, symlinks resolved (a
# library is looked up by its soname, which is the name ldd printed).
put() {
	[ -e "$root$1" ] && return 0
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
}
# put_elf FILE: FILE and every shared library it loads.
put_elf() {
	put "$1"
	env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$1" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r lib; do put "$lib"; done
}

put /bin/busybox
for p in $PROGRAMS; do
	put_elf "$p"
done
# The rxe provider is dlopen()ed by libibverbs, so ldd of the programs
# does not name it; libgcc_s is dlopen()ed by glibc when a thread unwinds.
put /etc/libibverbs.d/rxe.driver
for prov in /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so; do
	put_elf "$prov"
done
[ -e /lib/x86_64-linux-gnu/libgcc_s.so.1 ] &&
	put /lib/x86_64-linux-gnu/libgcc_s.so.1
# Busybox applets for everything the real programs above do not cover.
for a in $(/bin/busybox --list); do
	[ -e "$root/usr/bin/$a" ] || ln -s busybox "$root/usr/bin/$a"
done

mdir="$root/lib/modules/$kver"
mkdir -p "$mdir"
cp "$kdir"/modules/*.ko "$mdir/"
sed "s|^|/lib/modules/$kver/|" "$kdir/modules.order" >"$root/etc/modules.load"

cp "$here/guest-init.sh" "$root/init"
cp "$here/guest-agent.sh" "$root/usr/sbin/agent"
chmod 755 "$root/init" "$root/usr/sbin/agent"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$cache/initramfs.gz.new"
mv "$cache/initramfs.gz.new" "$cache/initramfs.gz"
echo "$stamp" >"$cache/initramfs.stamp"
rm -rf "$root"
trap - EXIT
say "guest: kernel $kver, initramfs $(du -h "$cache/initramfs.gz" | cut -f1)"
