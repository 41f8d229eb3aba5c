# tests/interop/: emuverbs against Linux's kernel Soft-RoCE (rdma_rxe) in a
# QEMU guest that mkguest.sh makes from Debian packages; the guest is kept
# in tests/interop/cache of the build tree (or $INTEROP_CACHE).
TESTS += tests/interop/rxe.sh tests/interop/rxe_cm.sh
EXTRA_DIST += tests/interop/rxe.sh tests/interop/rxe_cm.sh \
	tests/interop/harness.sh tests/interop/mkguest.sh \
	tests/interop/guest-init.sh tests/interop/guest-agent.sh \
	tests/interop/icrc_check.py

# The cache outlives `make clean` (a new guest means a 70 MB download),
# not `make distclean`; the last run's capture and logs go with clean.
clean-local: interop-clean
interop-clean:
	-rm -rf tests/interop/rxe-run tests/interop/rxe_cm-run
distclean-local: interop-distclean
interop-distclean:
	-rm -rf tests/interop/cache
.PHONY: interop-clean interop-distclean
