# Check unit tests of the lead's core modules: endpoints, async queue,
# engine, devices, and the query verbs through the public API.
CORE_UNIT_TESTS = tests/unit/test_endpoint tests/unit/test_async \
	tests/unit/test_engine tests/unit/test_device \
	tests/unit/test_verbs_query

check_PROGRAMS += $(CORE_UNIT_TESTS)
TESTS += $(CORE_UNIT_TESTS)

tests_unit_test_endpoint_SOURCES = tests/unit/test_endpoint.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_endpoint_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_endpoint_LDADD = libemucore.la $(CHECK_LIBS)

tests_unit_test_async_SOURCES = tests/unit/test_async.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_async_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_async_LDADD = libemucore.la $(CHECK_LIBS)

# test_engine and test_device make calloc fail through testlib.c's
# __wrap_calloc (allocation-failure paths) without a hook in the library.
tests_unit_test_engine_SOURCES = tests/unit/test_engine.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_engine_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_engine_LDADD = libemucore.la $(CHECK_LIBS)
tests_unit_test_engine_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=calloc

tests_unit_test_device_SOURCES = tests/unit/test_device.c \
	tests/unit/testlib.c tests/unit/testlib.h
tests_unit_test_device_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_device_LDADD = libemucore.la $(CHECK_LIBS)
tests_unit_test_device_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=calloc

# Public API only: the drop-in library and our verbs.h.
tests_unit_test_verbs_query_SOURCES = tests/unit/test_verbs_query.c \
	tests/unit/testlib.c tests/unit/testlib.h \
	tests/unit/verbs_fixture.c tests/unit/verbs_fixture.h
tests_unit_test_verbs_query_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_verbs_query_LDADD = libibverbs.la $(CHECK_LIBS)

# End to end: a netdev-bound port raises IBV_EVENT_GID_CHANGE (root, netns).
check_PROGRAMS += tests/unit/test_gid_event
tests_unit_test_gid_event_SOURCES = tests/unit/test_gid_event.c \
	tests/unit/testlib.c tests/unit/testlib.h \
	tests/unit/verbs_fixture.c tests/unit/verbs_fixture.h
tests_unit_test_gid_event_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_gid_event_LDADD = libibverbs.la $(CHECK_LIBS)
TESTS += tests/unit/test_gid_event
