/* Port speed model: IBTA lane speeds and link widths, their verbs encodings,
 * and the effective data rate a port is reported at and paced to. */
#ifndef EMU_SPEED_H
#define EMU_SPEED_H

#include <stdint.h>

enum emu_speed {
	EMU_SPEED_SDR,
	EMU_SPEED_DDR,
	EMU_SPEED_QDR,
	EMU_SPEED_FDR10,
	EMU_SPEED_FDR,
	EMU_SPEED_EDR,
	EMU_SPEED_HDR,
	EMU_SPEED_NDR,
	EMU_SPEED_XDR,
	EMU_SPEED_COUNT
};

enum emu_width {
	EMU_WIDTH_1X,
	EMU_WIDTH_2X,
	EMU_WIDTH_4X,
	EMU_WIDTH_8X,
	EMU_WIDTH_12X,
	EMU_WIDTH_COUNT
};

#define EMU_DEFAULT_SPEED EMU_SPEED_EDR
#define EMU_DEFAULT_WIDTH EMU_WIDTH_4X

/* Names as users write them in config ("EDR", "4x"); case-insensitive.
 * Return 0, or -1 for an unknown name. */
int emu_speed_parse(const char *name, enum emu_speed *out);
int emu_width_parse(const char *name, enum emu_width *out);
const char *emu_speed_name(enum emu_speed s);
const char *emu_width_name(enum emu_width w);

/* struct ibv_port_attr encodings, as the kernel fills them: active_speed_ex
 * carries the speed for every speed; active_speed is the same value when it
 * fits its 8 bits and NDR (128) otherwise, i.e. for XDR (ibv_query_port(3)). */
uint8_t emu_speed_to_active_speed(enum emu_speed s);
uint32_t emu_speed_to_active_speed_ex(enum emu_speed s);
uint8_t emu_width_to_active_width(enum emu_width w);
unsigned int emu_width_lanes(enum emu_width w);

/* Effective (nominal) data rate in units of 100 Mb/s (ibv_query_port_speed),
 * and in Mb/s: 4x EDR is 1000 and 100000. emu_rate_to_mbps(emu_port_rate())
 * gives the same Mb/s; ibv_rate_to_mbps() of that rate is the signalling rate
 * (103125 for IBV_RATE_100_GBPS), up to 6.25% above it. */
uint64_t emu_port_speed_100mbps(enum emu_speed s, enum emu_width w);
uint64_t emu_port_speed_mbps(enum emu_speed s, enum emu_width w);
/* The enum ibv_rate value for the port's static rate, IBV_RATE_MAX (0) when
 * the combination has no ibv_rate value. */
int emu_port_rate(enum emu_speed s, enum emu_width w);
/* Nominal Mb/s of an enum ibv_rate value (100000 for IBV_RATE_100_GBPS), 0
 * for IBV_RATE_MAX or an unknown value: for pacing to an AH's static_rate. */
uint64_t emu_rate_to_mbps(int ibv_rate);

#endif
