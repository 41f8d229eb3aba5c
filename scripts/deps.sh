#!/bin/sh
# Installs the Debian packages emuverbs builds and tests with, if missing:
# build tools and libraries, and the unmodified RDMA programs the tests run.
set -e

BUILD_PKGS="build-essential autoconf automake libtool pkg-config \
liburing-dev libev-dev check libnl-3-dev libnl-route-3-dev libinih-dev \
zlib1g-dev"
# The reference header (ABI test only), the RDMA programs the integration
# tests run unmodified, and the wire-inspection tools; for the kernel rxe
# guest (tests/interop), QEMU and what its initramfs is made of: busybox,
# cpio, kmod's depmod/modprobe and the rxe provider of libibverbs.
TEST_PKGS="libibverbs-dev ibverbs-utils perftest python3-pyverbs \
python3-scapy tshark tcpdump iproute2 qemu-system-x86 busybox-static cpio \
kmod ibverbs-providers"

want=$BUILD_PKGS
[ "${1-}" = "--test" ] && want="$BUILD_PKGS $TEST_PKGS"

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "emuverbs: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# tshark asks whether non-root users may capture; the answer is not needed.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	$SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get install -y --no-install-recommends $missing
