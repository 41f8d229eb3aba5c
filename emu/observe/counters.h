/* The device's counters as readers see them: one table names each as
 * `rdma statistic show` names rxe's or mlx5's where they have it
 * (doc/counters.md), and the reads of a port's or a QP's. The registers
 * themselves are the device's (emu/device/cnt.h). */
#ifndef EMU_COUNTERS_H
#define EMU_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/device/cnt.h"

struct emu_device;
struct emu_qp;

/* ---- names ---- */

#define EMU_CNT_NO_OFF	UINT16_MAX

/* A counter as readers show it: the sum of the uint64_t at off (and at
 * off2 unless EMU_CNT_NO_OFF) in struct emu_port_counters, or for a QP in
 * struct emu_qp_counters (port_only counters have no QP value). */
struct emu_cnt_name {
	const char *name;
	uint16_t off, off2;
	bool port_only;
};

/* Every counter, in the order readers list them (doc/counters.md): at
 * most EMU_CNT_NAMES_MAX (emu/device/cnt.h), for arrays of their values. */
extern const struct emu_cnt_name emu_cnt_names[];
extern const unsigned int emu_cnt_nnames;

static inline uint64_t emu_cnt_value(const struct emu_cnt_name *n,
				     const void *counters)
{
	const uint8_t *c = counters;
	uint64_t v = *(const uint64_t *)(const void *)(c + n->off);

	if (n->off2 != EMU_CNT_NO_OFF)
		v += *(const uint64_t *)(const void *)(c + n->off2);
	return v;
}

/* The entry named name, or NULL. */
const struct emu_cnt_name *emu_cnt_find(const char *name);

/* A copy of port_num's counters with the values kept elsewhere filled
 * in (engine thread, or where emu_device_run runs): 0, or EINVAL for no
 * such port. */
int emu_cnt_port_read(struct emu_device *dev, uint32_t port_num,
		      struct emu_port_counters *out);

/* What qp has received so far, packets and bytes (any thread: read on
 * its device's engine). */
void emu_cnt_qp_rx(struct emu_qp *qp, uint64_t *pkts, uint64_t *bytes);

/* Packets the QP has sent and not yet seen acknowledged (reliable
 * transports; 0 for the others). Engine thread. */
uint32_t emu_cnt_qp_inflight(const struct emu_qp *qp);

/* What each open port of dev did, every counter that is not 0, into the
 * debug log (EMUVERBS_DEBUG=xport), for measuring it and for tests that
 * account for every packet: as the device's transport stops. */
void emu_cnt_log_device(struct emu_device *dev);

#endif
