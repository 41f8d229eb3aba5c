# tests/unit/: the Check unit tests, one program per module. Each links the
# layer it tests as a convenience library: libemunet (net/), libemucore
# (emu/ over net/), libemufront (verbs/ over the core) or the drop-in
# libibverbs for public-API tests. Tests linked with -Wl,--wrap=calloc
# (malloc) make allocations fail through testlib.c, the library's own
# included, without a hook in the code. QPs come up through
# tests/helpers/qp_pair.c, which the integration programs link too.
check_LTLIBRARIES = libtestlib.la
libtestlib_la_SOURCES = tests/unit/testlib.c tests/unit/testlib.h \
	tests/unit/verbs_fixture.c tests/unit/verbs_fixture.h \
	tests/helpers/qp_pair.c tests/helpers/qp_pair.h
libtestlib_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)

WRAP_CALLOC = -Wl,--wrap=calloc
WRAP_ALLOC = -Wl,--wrap=calloc -Wl,--wrap=malloc

# net/
NET_UNIT_TESTS = tests/unit/test_opcode tests/unit/test_hdr \
	tests/unit/test_psn tests/unit/test_icrc tests/unit/test_udp \
	tests/unit/test_pcapng tests/unit/test_capture tests/unit/test_iphdr \
	tests/unit/test_tmh tests/unit/test_classify \
	tests/unit/test_shm
# emu/, through libemucore
CORE_UNIT_TESTS = tests/unit/test_log tests/unit/test_config tests/unit/test_speed \
	tests/unit/test_gid tests/unit/test_netlink tests/unit/test_mr \
	tests/unit/test_qp_attr tests/unit/test_rx tests/unit/test_endpoint \
	tests/unit/test_async tests/unit/test_engine tests/unit/test_device \
	tests/unit/test_sysview tests/unit/test_budget tests/unit/test_wr \
	tests/unit/test_pulse \
	tests/unit/test_link tests/unit/test_numtab tests/unit/test_fault \
	tests/unit/test_names \
	tests/unit/test_cc tests/unit/test_subnet tests/unit/test_odp_fault \
	tests/unit/test_counters tests/unit/test_trace
# the front end built in over the core (allocation failures reach it)
FRONT_UNIT_TESTS = tests/unit/test_cq_emu tests/unit/test_srq \
	tests/unit/test_qp_ex tests/unit/test_strings tests/unit/test_sysfs \
	tests/unit/test_ops tests/unit/test_ctl tests/unit/test_handle \
	tests/unit/test_dm tests/unit/test_import tests/unit/test_ctl_stats \
	tests/unit/test_vcounters tests/unit/test_ackreq tests/unit/test_fork
# the public API of the drop-in library
API_UNIT_TESTS = tests/unit/test_pd_ah tests/unit/test_cq tests/unit/test_qp \
	tests/unit/test_mw tests/unit/test_tm tests/unit/test_verbs_query \
	tests/unit/test_gid_event tests/unit/test_comp tests/unit/test_gsi \
	tests/unit/test_qp_sem tests/unit/test_odp tests/unit/test_cq_ts \
	tests/unit/test_pdom tests/unit/test_unmapped tests/unit/test_unsupported

# tools/: emuverbs run's namespaces and view (skips without namespaces)
TOOLS_UNIT_TESTS = tests/unit/test_nsview tests/unit/test_plot

# cm/: the CM MAD wire format (libemucm) and librdmacm's public API
CM_UNIT_TESTS = tests/unit/test_mad tests/unit/test_cm_stubs \
	tests/unit/test_cm_api tests/unit/test_cm_alloc tests/unit/test_ibcm

UNIT_TESTS = $(NET_UNIT_TESTS) $(CORE_UNIT_TESTS) $(FRONT_UNIT_TESTS) \
	$(API_UNIT_TESTS) $(TOOLS_UNIT_TESTS) $(CM_UNIT_TESTS)
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)

NET_LIBS = libtestlib.la libemunet.la $(CHECK_LIBS)
CORE_LIBS = libtestlib.la libemucore.la $(CHECK_LIBS)
FRONT_LIBS = libtestlib.la libemufront.la libemucore.la $(CHECK_LIBS) -ldl
API_LIBS = libtestlib.la libibverbs.la $(CHECK_LIBS)

tests_unit_test_opcode_LDADD = $(NET_LIBS)
tests_unit_test_hdr_LDADD = $(NET_LIBS)
tests_unit_test_psn_LDADD = $(NET_LIBS)
# zlib is the reference the built-in CRC-32 is compared with.
tests_unit_test_icrc_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
tests_unit_test_icrc_LDADD = $(NET_LIBS) $(ZLIB_LIBS)
tests_unit_test_udp_LDADD = $(NET_LIBS)
# The capture: pcapng blocks read back by libpcap; the capture's files,
# headers and allocation failures.
tests_unit_test_pcapng_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_unit_test_pcapng_LDADD = $(NET_LIBS) $(PCAP_LIBS)
tests_unit_test_capture_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_unit_test_capture_LDADD = $(NET_LIBS) $(PCAP_LIBS)
tests_unit_test_capture_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
tests_unit_test_iphdr_LDADD = $(NET_LIBS)
tests_unit_test_tmh_LDADD = $(NET_LIBS)
tests_unit_test_classify_LDADD = $(NET_LIBS)
# The shared-memory rings between two sides of one area, a peer's hostile
# writes, and the receive buffer's allocation failing.
tests_unit_test_shm_LDADD = $(NET_LIBS)
tests_unit_test_shm_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)

tests_unit_test_log_LDADD = $(CORE_LIBS)
# The trace writer's lines are checked with emuverbs plot's reader.
tests_unit_test_trace_SOURCES = tests/unit/test_trace.c tools/plot_json.c
tests_unit_test_trace_LDADD = $(CORE_LIBS)
tests_unit_test_trace_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
tests_unit_test_config_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS)
tests_unit_test_config_LDADD = $(CORE_LIBS)
tests_unit_test_speed_LDADD = $(CORE_LIBS)
tests_unit_test_gid_LDADD = $(CORE_LIBS)
tests_unit_test_gid_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)
# Runs as root only (network namespaces); otherwise exits 77 (SKIP).
tests_unit_test_netlink_CFLAGS = $(AM_CFLAGS) $(NLROUTE_CFLAGS)
tests_unit_test_netlink_LDADD = $(CORE_LIBS) $(NLROUTE_LIBS)
tests_unit_test_mr_LDADD = $(CORE_LIBS)
tests_unit_test_subnet_LDADD = $(CORE_LIBS)
tests_unit_test_subnet_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)
tests_unit_test_mr_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)
tests_unit_test_qp_attr_LDADD = $(CORE_LIBS)
tests_unit_test_rx_LDADD = $(CORE_LIBS)
tests_unit_test_wr_LDADD = $(CORE_LIBS)
tests_unit_test_endpoint_LDADD = $(CORE_LIBS)
tests_unit_test_async_LDADD = $(CORE_LIBS)
tests_unit_test_engine_LDADD = $(CORE_LIBS)
tests_unit_test_engine_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)
tests_unit_test_device_LDADD = $(CORE_LIBS)
tests_unit_test_budget_LDADD = $(CORE_LIBS)
tests_unit_test_pulse_LDADD = $(CORE_LIBS) -lpthread
tests_unit_test_link_LDADD = $(CORE_LIBS) -lm
tests_unit_test_link_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
tests_unit_test_numtab_LDADD = $(CORE_LIBS)
tests_unit_test_names_LDADD = $(CORE_LIBS)
tests_unit_test_fault_LDADD = $(CORE_LIBS)
tests_unit_test_cc_LDADD = $(CORE_LIBS) -lm
tests_unit_test_odp_fault_LDADD = $(CORE_LIBS)
tests_unit_test_counters_LDADD = $(CORE_LIBS)
tests_unit_test_numtab_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)
tests_unit_test_device_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)

# test_cq_emu pushes completions with emu_cq_push and reads them through
# the verbs; test_qp_ex reads back the send-ring slots ibv_wr_* wrote.
tests_unit_test_cq_emu_LDADD = $(FRONT_LIBS)
tests_unit_test_cq_emu_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
tests_unit_test_srq_LDADD = $(FRONT_LIBS)
tests_unit_test_srq_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
tests_unit_test_qp_ex_LDADD = $(FRONT_LIBS)
tests_unit_test_qp_ex_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)
tests_unit_test_strings_LDADD = $(FRONT_LIBS)
tests_unit_test_sysfs_LDADD = $(FRONT_LIBS)
# Compares the slots with the front end's own functions (verbs/ops.h).
tests_unit_test_ops_LDADD = $(FRONT_LIBS)
# Long WRITEs through a port budget the test shrinks (emu/transport/transport.h).
tests_unit_test_ackreq_LDADD = $(FRONT_LIBS)
# Device memory through the verbs, its budget and failures inside.
tests_unit_test_dm_LDADD = $(FRONT_LIBS)
tests_unit_test_dm_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
# Imports through the verbs, allocations failing inside.
tests_unit_test_import_LDADD = $(FRONT_LIBS)
tests_unit_test_import_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
# The control socket's server and commands on an open device.
tests_unit_test_ctl_LDADD = $(FRONT_LIBS)
tests_unit_test_ctl_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
# The handle table itself, and the verbs that look objects up in it.
tests_unit_test_handle_LDADD = $(FRONT_LIBS)
tests_unit_test_handle_LDFLAGS = $(AM_LDFLAGS) $(WRAP_CALLOC)
# A fork() child on its parent's objects; the control socket survives.
tests_unit_test_fork_LDADD = $(FRONT_LIBS)
# The control socket's counter commands over traffic of the verbs.
tests_unit_test_ctl_stats_LDADD = $(FRONT_LIBS)
tests_unit_test_ctl_stats_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
# The verbs counters on count-only flows, allocations failing inside.
tests_unit_test_vcounters_LDADD = $(FRONT_LIBS)
tests_unit_test_vcounters_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)

tests_unit_test_pd_ah_LDADD = $(API_LIBS)
tests_unit_test_unsupported_LDADD = $(API_LIBS) -ldl
# The scripted peer builds its packets with net/'s headers and ICRC.
tests_unit_test_comp_LDADD = libtestlib.la libibverbs.la libemunet.la \
	$(CHECK_LIBS)
tests_unit_test_cq_LDADD = $(API_LIBS)
tests_unit_test_qp_LDADD = $(API_LIBS)
tests_unit_test_mw_LDADD = $(API_LIBS)
tests_unit_test_tm_LDADD = $(API_LIBS)
tests_unit_test_verbs_query_LDADD = $(API_LIBS)
# End to end: a netdev-bound port raises IBV_EVENT_GID_CHANGE (root, netns).
tests_unit_test_gid_event_LDADD = $(API_LIBS)
tests_unit_test_gsi_LDADD = $(API_LIBS)
tests_unit_test_qp_sem_LDADD = $(API_LIBS)
tests_unit_test_odp_LDADD = $(API_LIBS)
tests_unit_test_cq_ts_LDADD = $(API_LIBS)
tests_unit_test_pdom_LDADD = $(API_LIBS)
tests_unit_test_unmapped_LDADD = $(API_LIBS)

tests_unit_test_mad_LDADD = libtestlib.la libemucm.la $(CHECK_LIBS)

tests_unit_test_nsview_LDADD = libtestlib.la libnsview.la $(CHECK_LIBS)
tests_unit_test_plot_SOURCES = tests/unit/test_plot.c tools/plot_json.c
tests_unit_test_plot_LDADD = libtestlib.la $(CHECK_LIBS)
# Builds the view itself for the tests that find and fill it.
tests_unit_test_sysview_LDADD = $(CORE_LIBS) libnsview.la

tests_unit_test_cm_stubs_LDADD = libtestlib.la librdmacm.la $(CHECK_LIBS)
# The public API over the built librdmacm and libibverbs.
tests_unit_test_cm_api_LDADD = libtestlib.la librdmacm.la libibverbs.la \
	$(CHECK_LIBS)
# Hostile MADs to QP1, built with cm/mad.h's packers (libemucm).
tests_unit_test_ibcm_LDADD = libtestlib.la librdmacm.la libibverbs.la \
	libemucm.la $(CHECK_LIBS)
# librdmacm's sources built in (a convenience copy, objects of its own) so
# that -Wl,--wrap reaches their allocations; libibverbs stays the shared
# one, its allocations untouched.
check_LTLIBRARIES += libtestrdmacm.la
libtestrdmacm_la_SOURCES = $(librdmacm_la_SOURCES)
libtestrdmacm_la_CFLAGS = $(AM_CFLAGS)
libtestrdmacm_la_LIBADD = libibverbs.la libemucm.la libemuutil.la -lpthread
tests_unit_test_cm_alloc_LDADD = libtestlib.la libtestrdmacm.la $(CHECK_LIBS)
tests_unit_test_cm_alloc_LDFLAGS = $(AM_LDFLAGS) $(WRAP_ALLOC)
