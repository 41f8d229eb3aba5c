# net/: the wire (opcode table, header accessors, PSN arithmetic, ICRC) and
# the UDP side (endpoints, batched I/O), built as one convenience library.
libemunet_la_SOURCES = \
	net/opcode.c net/opcode.h \
	net/hdr.h \
	net/psn.h \
	net/icrc.c net/icrc.h \
	net/endpoint.c net/endpoint.h \
	net/udp.c net/udp.h
libemunet_la_CFLAGS = $(AM_CFLAGS) $(URING_CFLAGS) $(ISAL_CFLAGS)
libemunet_la_LIBADD = $(URING_LIBS) $(ISAL_LIBS) $(ZLIB_LIBS)
