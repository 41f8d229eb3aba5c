#!/bin/sh
# Installs the Debian packages emuverbs builds and tests with, if missing:
# build tools and libraries, and the unmodified RDMA programs the tests run.
set -e

BUILD_PKGS="build-essential autoconf automake libtool pkg-config \
liburing-dev libev-dev check libnl-3-dev libnl-route-3-dev libinih-dev \
zlib1g-dev libisal-dev libpcap-dev"
# The reference header (ABI test only), the RDMA programs the integration
# tests run unmodified, the wire-inspection tools, clang for the fuzz
# target; for the kernel rxe guest (tests/interop), QEMU and what its
# initramfs is made of: busybox, cpio, kmod's depmod/modprobe and the rxe
# provider of libibverbs.
TEST_PKGS="libibverbs-dev ibverbs-utils perftest python3-pyverbs \
python3-scapy tshark tcpdump iproute2 clang qemu-system-x86 busybox-static \
cpio kmod ibverbs-providers"
# UCX (tests/integration/ucx.sh), the namespace tools of view.sh, and
# Open MPI with its compiler (mpi.sh).
TEST_PKGS="$TEST_PKGS ucx-utils util-linux openmpi-bin libopenmpi-dev"
# librdmacm: the reference headers (ABI test), Debian's rdma_cm programs
# (rdmacm.sh) and libfabric-bin: the verbs provider's fi_info and
# fi_pingpong (fabric.sh), and fi_pingpong on the shm provider, the
# baseline `emuverbs bench` holds same-host traffic against (bench.sh); the
# symbol test also reads libfabric1, libucx0 and librdmacm1, which these
# pull in.
TEST_PKGS="$TEST_PKGS librdmacm-dev rdmacm-utils libfabric-bin"
# qperf: a program that addresses peers by LID alone (tests/integration/ib.sh).
TEST_PKGS="$TEST_PKGS qperf"
# A terminal for emuverbs top to draw in and be driven through (top.sh).
TEST_PKGS="$TEST_PKGS tmux"
# emuverbs plot draws with gnuplot (trace.sh; a user of the command needs
# it too, and is told so).
TEST_PKGS="$TEST_PKGS gnuplot-nox"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=""

# install PKG...: apt-get install those not installed yet.
install() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "emuverbs: installing:$missing"
	if [ -z "$updated" ]; then
		$SUDO apt-get update
		updated=yes
	fi
	# tshark asks whether non-root users may capture; no answer needed.
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		$SUDO debconf-set-selections 2>/dev/null || true
	# shellcheck disable=SC2086
	$SUDO apt-get install -y --no-install-recommends $missing
}

if [ "${1-}" != "--test" ]; then
	# shellcheck disable=SC2086
	install $BUILD_PKGS
	exit 0
fi
# shellcheck disable=SC2086
install $BUILD_PKGS $TEST_PKGS
# libFuzzer's runtime is in clang's compiler-rt package, whose name carries
# clang's version (libclang-rt-14-dev on Debian 12); older releases ship it
# in clang's own packages.
v=$(clang --version 2>/dev/null |
	sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -1)
if [ -n "$v" ] && apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1; then
	install "libclang-rt-$v-dev"
fi
