# tests/integration/: unmodified Debian programs (ibverbs-utils, perftest,
# pyverbs, rdma-core's own suite) through `emuverbs run`, programs of ours
# over the public API, the wire as tshark and scapy see it, namespaces.
INTEG_TESTS = tests/integration/devinfo.sh \
	tests/integration/pyverbs.sh tests/integration/errpaths.sh \
	tests/integration/install.sh tests/integration/pingpong.sh \
	tests/integration/perftest.sh tests/integration/srq.sh \
	tests/integration/wire.sh tests/integration/rdma_core_suite.sh \
	tests/integration/netns.sh tests/integration/datacheck.sh \
	tests/integration/peer_death.sh tests/integration/coexist.sh \
	tests/integration/refusals.sh tests/integration/bench.sh \
	tests/integration/budget.sh tests/integration/blocked_target.sh \
	tests/integration/many_qps.sh tests/integration/faults.sh \
	tests/integration/control.sh tests/integration/ib.sh \
	tests/integration/jobs.sh tests/integration/contention.sh
TESTS += $(INTEG_TESTS)

# Counters: every packet of known exchanges accounted for against a
# capture, emuverbs stats, the sysfs view's hw_counters; emuverbs top in
# tmux (a list of their own).
COUNTER_TESTS = tests/integration/counters.sh tests/integration/top.sh
TESTS += $(COUNTER_TESTS)
EXTRA_DIST += $(COUNTER_TESTS) tests/integration/counters_check.py
EXTRA_DIST += $(INTEG_TESTS) tests/integration/lib.sh \
	tests/integration/pyverbs_device.py tests/integration/errpaths.c \
	tests/integration/wire_check.py

# UCX, Open MPI over UCX, and the view of /dev and /sys emuverbs run
# gives programs (a list of its own, so that it and the one above change
# independently).
VIEW_TESTS = tests/integration/ucx.sh tests/integration/view.sh \
	tests/integration/mpi.sh
TESTS += $(VIEW_TESTS)
EXTRA_DIST += $(VIEW_TESTS) tests/integration/view_check.py \
	tests/integration/mpi_pingpong.c

# librdmacm: Debian's rdma_cm programs load ours (a list of its own too),
# and rsockets between two processes of ours.
CM_TESTS = tests/integration/rdmacm.sh tests/integration/fabric.sh \
	tests/integration/ucx_rdmacm.sh tests/integration/rsocket.sh \
	tests/integration/rs_check.sh
TESTS += $(CM_TESTS)
EXTRA_DIST += $(CM_TESTS)

# The shared-memory wire between processes: both wires in one process at
# once, a killed peer, stale socket files, another user refused (a list of
# its own).
WIRE_TESTS = tests/integration/wires.sh
TESTS += $(WIRE_TESTS)
EXTRA_DIST += $(WIRE_TESTS)

# Another user against our rdma_cm and runtime directory, and one server
# with a thousand clients (cm_trust.sh; cm_forge is that other user).
TESTS += tests/integration/cm_trust.sh
EXTRA_DIST += tests/integration/cm_trust.sh
check_PROGRAMS += tests/integration/cm_crowd tests/integration/cm_forge
tests_integration_cm_crowd_SOURCES = tests/integration/cm_crowd.c
tests_integration_cm_crowd_LDADD = librdmacm.la libibverbs.la
tests_integration_cm_forge_SOURCES = tests/integration/cm_forge.c

# The scripts run the built tools and library.
check_SCRIPTS += emuverbs

# Every opcode of RC, UC and UD between two processes, byte for byte; and a
# peer killed mid-connection (RETRY_EXC_ERR in bounded time).
check_PROGRAMS += tests/integration/datacheck tests/integration/peer_death
tests_integration_datacheck_SOURCES = tests/integration/datacheck.c
tests_integration_datacheck_LDADD = libtwohost.la libibverbs.la
tests_integration_peer_death_SOURCES = tests/integration/peer_death.c
tests_integration_peer_death_LDADD = libtwohost.la libibverbs.la

# What UC and UD deliver over a lossy link (faults.sh).
check_PROGRAMS += tests/integration/lossy
tests_integration_lossy_SOURCES = tests/integration/lossy.c
tests_integration_lossy_LDADD = libtwohost.la libibverbs.la

# One-sided operations on a target blocked in a system call.
check_PROGRAMS += tests/integration/blocked_target
tests_integration_blocked_target_SOURCES = tests/integration/blocked_target.c
tests_integration_blocked_target_LDADD = libtwohost.la libibverbs.la

# rsockets over our librdmacm: a server and a client process, every
# check one line.
check_PROGRAMS += tests/integration/rs_check
tests_integration_rs_check_SOURCES = tests/integration/rs_check.c
tests_integration_rs_check_LDADD = librdmacm.la libibverbs.la

if HAVE_DEBIAN_VERBS
# Built against the system header and library on purpose (no -I include):
# at run time `emuverbs run` hands it our library instead.
check_PROGRAMS += tests/integration/errpaths
tests_integration_errpaths_SOURCES = tests/integration/errpaths.c
tests_integration_errpaths_CPPFLAGS = -D_GNU_SOURCE
tests_integration_errpaths_LDADD = -libverbs -ldl
endif

# mad_pcap packs CM MADs into RoCEv2 packets to QP 1 and writes them as a
# pcap; mad_tshark.sh has tshark (and scapy, for the ICRC) check it.
check_PROGRAMS += tests/integration/mad_pcap
tests_integration_mad_pcap_SOURCES = tests/integration/mad_pcap.c
tests_integration_mad_pcap_LDADD = libemucm.la libemunet.la
TESTS += tests/integration/mad_tshark.sh
EXTRA_DIST += tests/integration/mad_tshark.sh tests/integration/mad_tshark.py

# A thousand RC QPs x 128 WRITEs of 4 KiB between two processes, every
# byte verified at the target; the QPs come up through the tests' helper.
check_PROGRAMS += tests/integration/many_qps
tests_integration_many_qps_SOURCES = tests/integration/many_qps.c \
	tests/helpers/qp_pair.c tests/helpers/qp_pair.h
tests_integration_many_qps_LDADD = libibverbs.la

# The capture and the event trace (a list of their own): pingpongs
# captured on both sides and checked by tshark and scapy, marks of fault
# rules, emuverbs trace on running processes, emuverbs plot.
CAPTURE_TESTS = tests/integration/capture.sh tests/integration/trace.sh
TESTS += $(CAPTURE_TESTS)
EXTRA_DIST += $(CAPTURE_TESTS)
