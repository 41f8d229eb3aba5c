# tests/fuzz/: the receive path's libFuzzer target. fuzz.sh builds it with
# clang (ASan+UBSan) from the sources and runs it for a bounded time from
# seeds made of captured traffic (make_seeds.py); scripts/test.sh runs it
# after the two suites, and `make fuzz` by hand (FUZZ_SECONDS=N).
EXTRA_DIST += tests/fuzz/fuzz.sh tests/fuzz/fuzz_rx.c \
	tests/fuzz/make_seeds.py tests/fuzz/seeds

fuzz:
	top_srcdir='$(abs_top_srcdir)' sh $(top_srcdir)/tests/fuzz/fuzz.sh
.PHONY: fuzz
