# cm/: librdmacm.so.1, the rdma_cm API (event channels, ids, address and
# route resolution, the IBTA CM protocol, rsockets) over our libibverbs,
# with rdma-core's symbol versions. Installed next to our libibverbs in
# the private directory, never over the system's.
emuverbs_LTLIBRARIES += librdmacm.la
librdmacm_la_SOURCES = cm/cm.h cm/core.h cm/core.c cm/channel.c cm/gsi.c \
	cm/addr.c cm/ibcm.c cm/cma.c cm/qp.c cm/addrinfo.c cm/liveness.c \
	cm/peer.c \
	cm/stubs.c cm/strings.c cm/port.c \
	cm/rs.h cm/rsocket.c cm/rs_stream.c cm/rs_dgram.c cm/rs_poll.c
librdmacm_la_LIBADD = libibverbs.la libemucm.la libemuutil.la -lpthread
librdmacm_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 -no-undefined \
	-Wl,--no-undefined -Wl,--version-script=$(top_srcdir)/cm/librdmacm.map
EXTRA_librdmacm_la_DEPENDENCIES = $(top_srcdir)/cm/librdmacm.map
EXTRA_DIST += cm/librdmacm.map

# pkg-config emuverbs-rdmacm: emuverbs plus -lrdmacm.
pkgconfig_DATA += emuverbs-rdmacm.pc

# The CM MAD wire format on its own, for its unit test and the capture
# test; librdmacm links it in.
noinst_LTLIBRARIES += libemucm.la
libemucm_la_SOURCES = cm/mad.c cm/mad.h
