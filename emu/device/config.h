/* Configuration model of the emulated devices: what an INI file, the
 * environment or the embedded default declares, before any device exists. */
#ifndef EMU_CONFIG_H
#define EMU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <netinet/in.h>

#include "emu/device/fault.h"
#include "emu/device/speed.h"

#define EMU_MAX_DEVICES 8
#define EMU_MAX_PORTS 4
#define EMU_MAX_STATIC_GIDS 16
/* Static LID routes of an InfiniBand port (routes = LID@ADDRESS,...). */
#define EMU_MAX_LID_ROUTES 64

struct emu_lid_route {
	uint16_t lid;
	struct in6_addr addr;		/* IPv4 v4-mapped */
};
#define EMU_NAME_MAX 64
#define EMU_DEFAULT_GID_TBL_LEN 16

/* A GID the config file pins at a fixed index of a port's table. */
struct emu_static_gid {
	uint32_t index;
	uint8_t raw[16];	/* network byte order, as union ibv_gid */
	uint32_t type;		/* enum ibv_gid_type value */
};

/* DCQCN's parameters (the names are the paper's; the defaults its, and
 * mlx5's where it has them): g for alpha, the alpha and rate-increase
 * periods, the byte counter, fast-recovery steps, the additive and
 * hyper-increase steps, and the floor of a cut. */
struct emu_dcqcn_cfg {
	double g;
	uint32_t alpha_us, timer_us;
	uint32_t bytes_kb;
	uint32_t f;
	uint32_t ai_mbps, hai_mbps, min_mbps;
};

#define EMU_DCQCN_DEFAULTS \
	{ 1.0 / 256, 55, 55, 10240, 5, 40, 100, 10 }

/* The port's wire (key `wire`, EMUVERBS_WIRE). */
enum emu_wire {
	EMU_WIRE_AUTO,		/* shared memory to this host's ports */
	EMU_WIRE_UDP,		/* UDP to every peer */
	EMU_WIRE_SHM,		/* as auto, and says why a peer is not */
};

struct emu_port_config {
	uint8_t link_layer;	/* IBV_LINK_LAYER_ETHERNET or _INFINIBAND */
	bool active;		/* initial state: ACTIVE (true) or DOWN */
	enum emu_speed speed;
	enum emu_width width;
	uint32_t mtu;		/* bytes, 256..4096: max and active MTU */
	uint32_t gid_tbl_len;
	uint16_t pkey_tbl_len;
	uint32_t latency_us;	/* one-way latency added to egress */
	uint32_t jitter_us;	/* its spread (emu/device/link.h) */
	uint8_t jitter;		/* enum emu_jitter */
	uint32_t link_seed;	/* of the jitter's draws */
	uint32_t ecn_threshold;	/* queue (packets) that marks CE; 0: off */
	uint32_t cnp_interval_us; /* per QP, between CNPs sent */
	bool dcqcn;		/* CNPs cut the sending QP's rate */
	struct emu_dcqcn_cfg dcqcn_cfg;
	/* Endpoint: an explicit address, else a netdev, else a free loopback
	 * address claimed at discovery. */
	bool has_address;
	struct in6_addr address; /* IPv4 stored v4-mapped (::ffff:a.b.c.d) */
	char netdev[IF_NAMESIZE];
	/* UDP I/O through io_uring where the kernel allows (udp_io =
	 * io_uring); otherwise recvmmsg/sendmmsg, which a polling
	 * application can drive from its own thread (doc/design-notes.md). */
	bool udp_uring;
	/* Which wire carries frames to a peer (enum emu_wire): auto, the
	 * default, and shm use shared memory for ports of this host and
	 * user (net/shm.h) and UDP for the rest; udp always UDP. */
	uint8_t wire;
	/* The UDP port the port listens on and its peers are sent to: 4791
	 * (RoCEv2), unless set; udp_port_set says it was. */
	uint16_t udp_port;
	bool udp_port_set;
	unsigned int n_static_gids;
	struct emu_static_gid static_gids[EMU_MAX_STATIC_GIDS];
	/* InfiniBand ports: a LID of its own (0: from the emulated subnet
	 * manager, emu/device/subnet.c), and where other hosts' LIDs are. */
	uint16_t lid;
	unsigned int n_routes;
	struct emu_lid_route routes[EMU_MAX_LID_ROUTES];
};

/* Capability limits reported by ibv_query_device and enforced by the verbs. */
/* Memory keys a device can have at most, regions and windows together: a
 * key carries its slot in 24 bits (emu/objects/mr.h), so max_mr is no
 * larger. */
#define EMU_MR_MAX_SLOTS (1u << 24)

struct emu_limits {
	uint32_t max_qp, max_qp_wr, max_sge, max_sge_rd;
	uint32_t max_cq, max_cqe, max_mr, max_pd, max_ah, max_mw;
	uint64_t max_mr_size;
	uint32_t max_qp_rd_atom, max_qp_init_rd_atom, max_res_rd_atom;
	uint32_t max_srq, max_srq_wr, max_srq_sge;
	uint32_t max_inline_data;
	uint32_t max_mcast_grp, max_mcast_qp_attach;
	uint32_t atomic_cap;	/* enum ibv_atomic_cap value */
};

struct emu_device_config {
	char name[EMU_NAME_MAX];
	uint64_t node_guid;	/* host order; 0 = derive from the endpoint */
	uint64_t sys_image_guid; /* host order; 0 = same as node_guid */
	char fw_ver[64];
	uint32_t vendor_id, vendor_part_id, hw_ver;
	struct emu_limits limits;
	unsigned int nports;
	struct emu_port_config ports[EMU_MAX_PORTS];
	/* Internal to the parser: where the section began, for messages. */
	const char *file;
	int line;
	bool bad;		/* an error was reported: do not create it */
};

struct emu_config {
	unsigned int ndevices;
	struct emu_device_config devices[EMU_MAX_DEVICES];
	/* Fault rules: [fault NAME] sections, then EMUVERBS_FAULT's; each
	 * goes to the devices its device= names (all without one). */
	unsigned int nfaults;
	struct emu_fault_rule faults[EMU_FAULT_MAX];
	char source[4096];	/* file it came from, or "(built-in default)" */
};

/* The embedded default: one device emu0 with one ACTIVE RoCE port. */
void emu_config_default(struct emu_config *cfg);
void emu_device_config_default(struct emu_device_config *dev,
			       const char *name);
void emu_port_config_default(struct emu_port_config *port);

/* Parse an INI file or in-memory text. Every problem is one line on errf
 * naming file:line and the key; a device with a problem is left out of cfg
 * (the others are kept). Returns the number of problems reported. */
int emu_config_parse_file(struct emu_config *cfg, const char *path,
			  FILE *errf);
int emu_config_parse_string(struct emu_config *cfg, const char *text,
			    const char *name, FILE *errf);

/* One key of a running port (state, speed, width, latency_us, jitter_us,
 * jitter, link_seed) from its text: 0, or -1 with "key: why" in err. */
int emu_port_config_set_live(struct emu_port_config *port, const char *key,
			     const char *v, char *err, size_t errlen);

/* Apply EMUVERBS_* environment overrides to every port of every device.
 * Returns the number of problems reported on errf. */
int emu_config_apply_env(struct emu_config *cfg, FILE *errf);

/* Find and load the configuration the way the library does: the file named
 * by EMUVERBS_CONFIG, else $XDG_CONFIG_HOME/emuverbs/emuverbs.conf (or
 * ~/.config/...), else EMU_SYSCONFDIR/emuverbs.conf, else the embedded
 * default; then environment overrides. Returns the number of problems. */
int emu_config_load(struct emu_config *cfg, FILE *errf);

#endif
