# net/: the wire (opcode table, header accessors, the TMH and RVH, packet
# classes, PSN arithmetic, ICRC, IP headers and the UD GRH),
# the UDP side (endpoints, batched I/O) and the capture of what it sends
# and receives (pcap through libpcap, pcapng of our own), and the guarded
# access to application memory that the transport and the UDP side share,
# built as one convenience library.
libemunet_la_SOURCES = \
	net/opcode.c net/opcode.h \
	net/classify.c net/classify.h \
	net/hdr.h net/tmh.h \
	net/psn.h \
	net/icrc.c net/icrc.h \
	net/memguard.c net/memguard.h \
	net/endpoint.c net/endpoint.h \
	net/udp.c net/udp.h \
	net/shm.c net/shm.h \
	net/pcapng.c net/pcapng.h \
	net/iphdr.c net/iphdr.h \
	net/capture.c net/capture.h net/udp_cap.c
libemunet_la_CFLAGS = $(AM_CFLAGS) $(URING_CFLAGS) $(ISAL_CFLAGS) \
	$(PCAP_CFLAGS)
libemunet_la_LIBADD = $(URING_LIBS) $(ISAL_LIBS) $(ZLIB_LIBS) $(PCAP_LIBS)
