/* tests/integration/mad_pcap.c: packs one CM MAD of each kind with
 * cm/mad.h, wraps each in a RoCEv2 UD packet to QP1 and writes them as a
 * pcap for mad_tshark.sh, which has tshark decode them independently.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm/mad.h"
#include "net/hdr.h"
#include "net/icrc.h"

#define IB_LEN	(WIRE_BTH_LEN + WIRE_DETH_LEN + MAD_LEN)
#define PKT_LEN	(ICRC_IPV4_LEN + ICRC_UDP_LEN + IB_LEN + ICRC_LEN)
#define LINKTYPE_RAW	101	/* the packet starts with its IP header */

static FILE *out;
static uint32_t psn;

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void pcap_header(void)
{
	uint8_t h[24] = { 0 };

	put_le32(h, 0xa1b2c3d4);
	h[4] = 2;			/* version 2.4 */
	h[6] = 4;
	put_le32(h + 16, 65535);	/* snap length */
	put_le32(h + 20, LINKTYPE_RAW);
	fwrite(h, sizeof(h), 1, out);
}

static uint16_t ip_checksum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * IPv4 192.0.2.1 -> 192.0.2.2 (DF, identification 0, TTL 64), UDP 49152 ->
 * 4791, BTH UD SEND ONLY to QP 1, DETH with the GSI Q_Key from QP 1, the
 * MAD, and the ICRC over all of it.
 */
static void emit(const uint8_t *mad)
{
	uint8_t pkt[PKT_LEN] = { 0 }, rec[16] = { 0 };
	uint8_t *ip = pkt, *udp = pkt + ICRC_IPV4_LEN;
	uint8_t *ib = udp + ICRC_UDP_LEN;
	static uint32_t frame;

	ip[0] = 0x45;
	wire_put16(ip + 2, PKT_LEN);
	wire_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	inet_pton(AF_INET, "192.0.2.1", ip + 12);
	inet_pton(AF_INET, "192.0.2.2", ip + 16);
	wire_put16(ip + 10, ip_checksum(ip, ICRC_IPV4_LEN));
	wire_put16(udp, 49152);
	wire_put16(udp + 2, WIRE_ROCE_UDP_PORT);
	wire_put16(udp + 4, ICRC_UDP_LEN + IB_LEN + ICRC_LEN);

	bth_init(ib, WIRE_OP_UD(SEND_ONLY), false, false, 0, WIRE_DEFAULT_PKEY,
		 WIRE_GSI_QPN, false, psn++);
	deth_init(ib, MAD_GSI_QKEY, WIRE_GSI_QPN);
	memcpy(wire_payload(ib), mad, MAD_LEN);
	icrc_put(ib + IB_LEN, icrc_compute(ip, ICRC_IPV4_LEN, udp, ib, IB_LEN));

	frame++;
	put_le32(rec, frame);		/* one second apart */
	put_le32(rec + 8, PKT_LEN);
	put_le32(rec + 12, PKT_LEN);
	fwrite(rec, sizeof(rec), 1, out);
	fwrite(pkt, sizeof(pkt), 1, out);
}

static void gid(uint8_t g[16], const char *text)
{
	if (inet_pton(AF_INET6, text, g) != 1)
		abort();
}

static void sin4(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in *s = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
}

static void sin6(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	inet_pton(AF_INET6, ip, &s->sin6_addr);
}

/* Private data after the IP CM header: "emu" and then zeros. */
static void req_pdata(uint8_t *mad, struct sockaddr_storage *src,
		      struct sockaddr_storage *dst)
{
	uint8_t pd[CM_IP_HDR_LEN + 3];

	if (cm_ip_hdr_pack(pd, (struct sockaddr *)src,
			   (struct sockaddr *)dst))
		abort();
	memcpy(pd + CM_IP_HDR_LEN, "emu", 3);
	if (!cm_set_pdata(mad, pd, sizeof(pd)))
		abort();
}

/*
 * Frame 1: RC REQ over IPv4 GIDs to TCP port 18515; the 5-bit fields at
 * their largest next to 1-bit ones at 1, neighbours at 0.
 */
static void req_v4(void)
{
	uint8_t mad[MAD_LEN];
	struct cm_path p = {
		.local_lid = 0xffff, .remote_lid = 0,
		.flow_label = 0xfffff, .packet_rate = 0x3f,
		.traffic_class = 0xa5, .hop_limit = 0x40, .sl = 0xf,
		.subnet_local = true, .local_ack_timeout = 0x1f,
	};
	struct sockaddr_storage src, dst;

	cm_mad_init(mad, CM_ATTR_REQ, 0x0123456789abcdefull);
	cm_req_set_local_comm_id(mad, 0x11223344);
	cm_req_set_service_id(mad, cm_sid_make(CM_PS_TCP, 18515));
	cm_req_set_local_ca_guid(mad, 0x0002c90300a1b2c3ull);
	cm_req_set_local_qkey(mad, 0x0badcafe);
	cm_req_set_local_qpn(mad, 0xabcdef);
	cm_req_set_responder_resources(mad, 0x10);
	cm_req_set_local_eecn(mad, 0);
	cm_req_set_initiator_depth(mad, 0x20);
	cm_req_set_remote_eecn(mad, 0);
	cm_req_set_remote_cm_response_timeout(mad, 31);
	cm_req_set_transport_service_type(mad, CM_TRANSPORT_RC);
	cm_req_set_e2e_flow_control(mad, 1);
	cm_req_set_starting_psn(mad, 0xffffff);
	cm_req_set_local_cm_response_timeout(mad, 0);
	cm_req_set_retry_count(mad, 7);
	cm_req_set_pkey(mad, 0xffff);
	cm_req_set_path_mtu(mad, WIRE_MTU_4096);
	cm_req_set_rdc_exists(mad, 0);
	cm_req_set_rnr_retry_count(mad, 7);
	cm_req_set_max_cm_retries(mad, 15);
	cm_req_set_srq(mad, 0);
	cm_req_set_ext_transport_type(mad, 0);
	gid(p.local_gid, "::ffff:192.0.2.1");
	gid(p.remote_gid, "::ffff:192.0.2.2");
	cm_req_set_path(mad, CM_PATH_PRIMARY, &p);
	sin4(&src, "192.0.2.1", 40000);
	sin4(&dst, "192.0.2.2", 18515);
	req_pdata(mad, &src, &dst);
	emit(mad);
}

/*
 * Frame 2: an XRC REQ to UDP port space port 1 with an IPv6 IP CM header,
 * the bits flipped against frame 1, and an alternate path.
 */
static void req_v6(void)
{
	uint8_t mad[MAD_LEN];
	struct cm_path p = {
		.local_lid = 0x0001, .remote_lid = 0xfffe,
		.flow_label = 0x12345, .packet_rate = 1,
		.traffic_class = 0, .hop_limit = 0xff, .sl = 0,
		.subnet_local = false, .local_ack_timeout = 0,
	};
	struct sockaddr_storage src, dst;

	cm_mad_init(mad, CM_ATTR_REQ, 1);
	cm_req_set_local_comm_id(mad, 0xffffffff);
	cm_req_set_service_id(mad, cm_sid_make(CM_PS_UDP, 1));
	cm_req_set_local_ca_guid(mad, 0xffffffffffffffffull);
	cm_req_set_local_qkey(mad, 0xffffffff);
	cm_req_set_local_qpn(mad, 0x000001);
	cm_req_set_responder_resources(mad, 0xff);
	cm_req_set_local_eecn(mad, 0xffffff);
	cm_req_set_initiator_depth(mad, 0);
	cm_req_set_remote_eecn(mad, 0x123456);
	cm_req_set_remote_cm_response_timeout(mad, 0);
	cm_req_set_transport_service_type(mad, CM_TRANSPORT_EXTENDED);
	cm_req_set_e2e_flow_control(mad, 0);
	cm_req_set_starting_psn(mad, 0);
	cm_req_set_local_cm_response_timeout(mad, 31);
	cm_req_set_retry_count(mad, 0);
	cm_req_set_pkey(mad, 0x8001);
	cm_req_set_path_mtu(mad, WIRE_MTU_256);
	cm_req_set_rdc_exists(mad, 1);
	cm_req_set_rnr_retry_count(mad, 0);
	cm_req_set_max_cm_retries(mad, 0);
	cm_req_set_srq(mad, 1);
	cm_req_set_ext_transport_type(mad, CM_EXT_TRANSPORT_XRC);
	gid(p.local_gid, "fe80::1");
	gid(p.remote_gid, "2001:db8::2");
	cm_req_set_path(mad, CM_PATH_PRIMARY, &p);
	gid(p.local_gid, "2001:db8::a");
	gid(p.remote_gid, "2001:db8::b");
	p.local_lid = 0x1234;
	p.flow_label = 0xabcde;
	p.sl = 5;
	p.local_ack_timeout = 14;
	cm_req_set_path(mad, CM_PATH_ALTERNATE, &p);
	sin6(&src, "2001:db8::1", 65535);
	sin6(&dst, "2001:db8::2", 1);
	req_pdata(mad, &src, &dst);
	emit(mad);
}

/* Frame 3: MRA of a REP, service timeout 20. */
static void mra(void)
{
	uint8_t mad[MAD_LEN];

	cm_mad_init(mad, CM_ATTR_MRA, 3);
	cm_mra_set_local_comm_id(mad, 0x01020304);
	cm_mra_set_remote_comm_id(mad, 0x05060708);
	cm_mra_set_message_mraed(mad, CM_MSG_REF_REP);
	cm_mra_set_service_timeout(mad, 20);
	emit(mad);
}

/* Frame 4: REJ of a REQ, consumer reject, 3 bytes of ARI. */
static void rej(void)
{
	uint8_t mad[MAD_LEN];
	const uint8_t ari[3] = { 0xaa, 0xbb, 0xcc };

	cm_mad_init(mad, CM_ATTR_REJ, 4);
	cm_rej_set_local_comm_id(mad, 0xcafef00d);
	cm_rej_set_remote_comm_id(mad, 0x11223344);
	cm_rej_set_message_rejected(mad, CM_MSG_REF_REQ);
	cm_rej_set_reason(mad, CM_REJ_CONSUMER);
	if (!cm_rej_set_ari(mad, ari, sizeof(ari)) ||
	    !cm_set_pdata(mad, "no", 2))
		abort();
	emit(mad);
}

/* Frame 5: REP. */
static void rep(void)
{
	uint8_t mad[MAD_LEN];

	cm_mad_init(mad, CM_ATTR_REP, 0x0123456789abcdefull);
	cm_rep_set_local_comm_id(mad, 0xcafef00d);
	cm_rep_set_remote_comm_id(mad, 0x11223344);
	cm_rep_set_local_qkey(mad, 0x80010000);
	cm_rep_set_local_qpn(mad, 0xfedcba);
	cm_rep_set_local_eecn(mad, 0x000102);
	cm_rep_set_starting_psn(mad, 0x654321);
	cm_rep_set_responder_resources(mad, 4);
	cm_rep_set_initiator_depth(mad, 8);
	cm_rep_set_target_ack_delay(mad, 31);
	cm_rep_set_failover_accepted(mad, CM_FAILOVER_UNSUPPORTED);
	cm_rep_set_e2e_flow_control(mad, 1);
	cm_rep_set_rnr_retry_count(mad, 7);
	cm_rep_set_srq(mad, 0);
	cm_rep_set_local_ca_guid(mad, 0x0002c90300d4e5f6ull);
	emit(mad);
}

/* Frames 6-8: RTU, DREQ, DREP. */
static void rtu_dreq_drep(void)
{
	uint8_t mad[MAD_LEN];

	cm_mad_init(mad, CM_ATTR_RTU, 6);
	cm_rtu_set_local_comm_id(mad, 0x11223344);
	cm_rtu_set_remote_comm_id(mad, 0xcafef00d);
	emit(mad);

	cm_mad_init(mad, CM_ATTR_DREQ, 7);
	cm_dreq_set_local_comm_id(mad, 0x11223344);
	cm_dreq_set_remote_comm_id(mad, 0xcafef00d);
	cm_dreq_set_remote_qpn(mad, 0xfedcba);
	emit(mad);

	cm_mad_init(mad, CM_ATTR_DREP, 8);
	cm_drep_set_local_comm_id(mad, 0xcafef00d);
	cm_drep_set_remote_comm_id(mad, 0x11223344);
	emit(mad);
}

/* Frames 9-12: SIDR_REQ, SIDR_REP, LAP, APR (tshark names them only). */
static void others(void)
{
	uint8_t mad[MAD_LEN];
	struct cm_path p = { .local_lid = 1 };
	struct sockaddr_storage src, dst;

	cm_mad_init(mad, CM_ATTR_SIDR_REQ, 9);
	cm_sidr_req_set_request_id(mad, 0x99);
	cm_sidr_req_set_pkey(mad, 0xffff);
	cm_sidr_req_set_service_id(mad, cm_sid_make(CM_PS_UDP, 7471));
	sin4(&src, "192.0.2.1", 1234);
	sin4(&dst, "192.0.2.2", 7471);
	req_pdata(mad, &src, &dst);
	emit(mad);

	cm_mad_init(mad, CM_ATTR_SIDR_REP, 10);
	cm_sidr_rep_set_request_id(mad, 0x99);
	cm_sidr_rep_set_status(mad, CM_SIDR_SUCCESS);
	cm_sidr_rep_set_qpn(mad, 0x000abc);
	cm_sidr_rep_set_service_id(mad, cm_sid_make(CM_PS_UDP, 7471));
	cm_sidr_rep_set_qkey(mad, CM_UDP_QKEY);
	emit(mad);

	cm_mad_init(mad, CM_ATTR_LAP, 11);
	cm_lap_set_local_comm_id(mad, 1);
	cm_lap_set_path(mad, &p);
	emit(mad);

	cm_mad_init(mad, CM_ATTR_APR, 12);
	cm_apr_set_local_comm_id(mad, 1);
	cm_apr_set_ap_status(mad, CM_APR_SUCCESS);
	emit(mad);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT.pcap\n", argv[0]);
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	pcap_header();
	req_v4();
	req_v6();
	mra();
	rej();
	rep();
	rtu_dreq_drep();
	others();
	if (fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
