/* emuverbs-devices: lists every emulated device with its ports' state,
 * link layer, width and speed, and GID tables, through the public verbs. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static const char *link_layer_str(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	default:
		return "unspecified";
	}
}

static const char *gid_type_str(uint32_t t)
{
	switch (t) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCEv1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCEv2";
	default:
		return "?";
	}
}

static unsigned int width_lanes(uint8_t w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

static const char *speed_name(uint8_t s, uint32_t s_ex)
{
	static const char *const names[] = { "SDR", "DDR", "QDR", "FDR10",
					     "FDR", "EDR", "HDR", "NDR" };
	unsigned int i;

	if (s_ex == 256 || (s == 0 && s_ex))
		return "XDR";
	for (i = 0; i < 8; i++)
		if (s == 1u << i)
			return names[i];
	return "?";
}

static void print_gid(const struct ibv_gid_entry *e)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, e->gid.raw, buf, sizeof(buf));
	printf("    GID[%2u] %-28s %-7s ifindex %u\n", e->gid_index, buf,
	       gid_type_str(e->gid_type), e->ndev_ifindex);
}

static int show_port(struct ibv_context *ctx, uint32_t p,
		     const struct ibv_gid_entry *gids, ssize_t ngids)
{
	struct ibv_port_attr pa;
	uint64_t speed = 0;
	ssize_t i;
	int rc;

	rc = ibv_query_port(ctx, (uint8_t)p, &pa);
	if (rc) {
		fprintf(stderr, "port %u: ibv_query_port: %s\n", p,
			strerror(rc));
		return -1;
	}
	rc = ibv_query_port_speed(ctx, p, &speed);
	if (rc) {
		fprintf(stderr, "port %u: ibv_query_port_speed: %s\n", p,
			strerror(rc));
		return -1;
	}
	printf("  port %u: %s, link layer %s, %ux %s, %" PRIu64
	       ".%" PRIu64 " Gb/s (port_speed %" PRIu64
	       " x 100 Mb/s), MTU %d, GID table %d slots\n",
	       p, ibv_port_state_str(pa.state), link_layer_str(pa.link_layer),
	       width_lanes(pa.active_width),
	       speed_name(pa.active_speed, pa.active_speed_ex), speed / 10,
	       speed % 10, speed, 128 << pa.active_mtu, pa.gid_tbl_len);
	for (i = 0; i < ngids; i++)
		if (gids[i].port_num == p)
			print_gid(&gids[i]);
	return 0;
}

static int show_device(struct ibv_device *dev)
{
	struct ibv_device_attr da;
	struct ibv_gid_entry *gids;
	struct ibv_context *ctx;
	uint64_t guid;
	ssize_t ngids;
	int rc = 0;
	uint32_t p;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "%s: ibv_open_device: %s\n",
			ibv_get_device_name(dev), strerror(errno));
		return -1;
	}
	if (ibv_query_device(ctx, &da)) {
		fprintf(stderr, "%s: ibv_query_device failed\n",
			ibv_get_device_name(dev));
		ibv_close_device(ctx);
		return -1;
	}
	guid = be64toh(ibv_get_device_guid(dev));
	printf("%s: node GUID %04x:%04x:%04x:%04x, firmware %s, %u port%s\n",
	       ibv_get_device_name(dev), (unsigned int)(guid >> 48),
	       (unsigned int)(guid >> 32) & 0xffff,
	       (unsigned int)(guid >> 16) & 0xffff,
	       (unsigned int)guid & 0xffff, da.fw_ver, da.phys_port_cnt,
	       da.phys_port_cnt == 1 ? "" : "s");
	gids = calloc(256u * da.phys_port_cnt + 1, sizeof(*gids));
	ngids = gids ? ibv_query_gid_table(ctx, gids,
					   256u * da.phys_port_cnt, 0)
		     : -ENOMEM;
	if (ngids < 0) {
		fprintf(stderr, "%s: ibv_query_gid_table: %s\n",
			ibv_get_device_name(dev), strerror((int)-ngids));
		rc = -1;
	}
	for (p = 1; rc == 0 && p <= da.phys_port_cnt; p++)
		rc = show_port(ctx, p, gids, ngids);
	free(gids);
	ibv_close_device(ctx);
	return rc;
}

int main(void)
{
	struct ibv_device **list;
	int n, i, rc = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	if (n == 0) {
		fprintf(stderr, "no emulated devices (see the messages above "
				"about the configuration)\n");
		rc = 1;
	}
	for (i = 0; i < n; i++)
		if (show_device(list[i]))
			rc = 1;
	ibv_free_device_list(list);
	return rc;
}
