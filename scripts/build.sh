#!/bin/sh
# Builds emuverbs in the source tree from scratch when needed: regenerates
# the Autotools files, configures, and compiles with warnings as errors.
set -e
cd "$(dirname "$0")/.."
[ -x configure ] && [ configure -nt configure.ac ] || ./autogen.sh
[ -f Makefile ] && [ Makefile -nt Makefile.am ] ||
	./configure --enable-werror ${EMU_CONFIGURE_FLAGS-}
make -j"$(nproc)"
