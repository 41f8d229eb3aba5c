# tests/: what spans the layers. symbols_test.sh checks the exported symbol
# versions against Debian's ELF files (the map from $top_srcdir, the
# library from $top_builddir/.libs), for libibverbs and (cm_symbols_test.sh)
# librdmacm; scapy_icrc_vectors.py regenerates the ICRC vectors embedded in
# tests/unit/test_icrc.c.
TESTS += tests/symbols_test.sh tests/cm_symbols_test.sh
EXTRA_DIST += tests/symbols_test.sh tests/cm_symbols_test.sh \
	tests/scapy_icrc_vectors.py
