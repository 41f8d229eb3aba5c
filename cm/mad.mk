# cm/mad.mk: the CM MAD wire format (cm/mad.c) as the convenience library
# libemucm, until cm/cm.mk builds the whole of cm/; and the capture test
# that has tshark decode the MADs it packs.
noinst_LTLIBRARIES += libemucm.la
libemucm_la_SOURCES = cm/mad.c cm/mad.h

# mad_pcap packs CM MADs into RoCEv2 packets to QP 1 and writes them as a
# pcap; mad_tshark.sh has tshark (and scapy, for the ICRC) check it.
check_PROGRAMS += tests/integration/mad_pcap
tests_integration_mad_pcap_SOURCES = tests/integration/mad_pcap.c
tests_integration_mad_pcap_LDADD = libemucm.la libemunet.la
TESTS += tests/integration/mad_tshark.sh
EXTRA_DIST += tests/integration/mad_tshark.sh tests/integration/mad_tshark.py
